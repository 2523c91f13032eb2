-- The opening explorer (GET /api/explorer): for each variant and position (its FEN without
-- the move counters), each move played from it in finished games, with how those games ended
-- and the latest of them. A game is counted once: the process that sets its `explored` counts
-- it in the same transaction (games finished before this migration are counted on start).
CREATE TABLE explorer (
    variant TEXT NOT NULL,
    position TEXT NOT NULL,
    uci TEXT NOT NULL,
    white BIGINT NOT NULL,
    draws BIGINT NOT NULL,
    black BIGINT NOT NULL,
    last_game TEXT NOT NULL,
    last_at BIGINT NOT NULL,
    PRIMARY KEY (variant, position, uci)
);

ALTER TABLE games ADD COLUMN explored BIGINT NOT NULL DEFAULT 0;

CREATE INDEX games_unexplored ON games (updated_at) WHERE explored = 0 AND status = 'finished';
