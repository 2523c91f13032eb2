-- Takebacks: a standing proposal (the side that made it) and how many takebacks the game has had,
-- which a process sharing the store compares to tell that its copy's moves were taken back.
ALTER TABLE games ADD COLUMN takeback_offer TEXT;
ALTER TABLE games ADD COLUMN takebacks BIGINT NOT NULL DEFAULT 0;
