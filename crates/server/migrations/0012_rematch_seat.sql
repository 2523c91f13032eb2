-- The SHA-256 of the seat token the player whose rematch offer stands will hold in the rematch.
-- That token is derived from the player's own token (which the database never holds), so a copy
-- of the database cannot be used to take a rematch's seat (`api.rs::rematch_token`).
ALTER TABLE games ADD COLUMN rematch_seat TEXT;
