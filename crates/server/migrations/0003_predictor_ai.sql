-- Predictor chess: the server AI's reveal for a ply, kept from its commitment until the ply
-- closes (never served; it survives a restart so the AI can still reveal).
CREATE TABLE predictor_secrets (
    game_id TEXT NOT NULL REFERENCES games (id),
    ply BIGINT NOT NULL,
    side TEXT NOT NULL,
    member TEXT NOT NULL,
    reveal TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    PRIMARY KEY (game_id, ply, side)
);
