-- Rematches of a finished game between two seats: the side whose offer stands, and once it is
-- accepted (or made against the AI) the new game's id (`POST /api/games/{id}/rematch`).
ALTER TABLE games ADD COLUMN rematch_offer TEXT;
ALTER TABLE games ADD COLUMN rematch TEXT;
