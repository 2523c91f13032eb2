-- A finished game's review (GET /api/games/{id}/review) as served, JSON: computed once, kept
-- through restarts. `nodes` is the search's node limit per position when it was made.
CREATE TABLE reviews (
    game_id TEXT PRIMARY KEY REFERENCES games (id),
    nodes BIGINT NOT NULL,
    review TEXT NOT NULL,
    created_at BIGINT NOT NULL
);
