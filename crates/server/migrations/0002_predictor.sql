-- Predictor chess: team members (ranked, best first by rank then by joining), commitments
-- (one per member and ply) and reveals (one per side and ply: the chosen member's).
CREATE TABLE predictor_members (
    game_id TEXT NOT NULL REFERENCES games (id),
    side TEXT NOT NULL,
    name TEXT NOT NULL,
    rank BIGINT NOT NULL,
    token TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    PRIMARY KEY (game_id, side, name)
);

CREATE TABLE predictor_commits (
    game_id TEXT NOT NULL REFERENCES games (id),
    ply BIGINT NOT NULL,
    side TEXT NOT NULL,
    member TEXT NOT NULL,
    commitment TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    PRIMARY KEY (game_id, ply, side, member)
);

CREATE TABLE predictor_reveals (
    game_id TEXT NOT NULL REFERENCES games (id),
    ply BIGINT NOT NULL,
    side TEXT NOT NULL,
    member TEXT NOT NULL,
    reveal TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    PRIMARY KEY (game_id, ply, side)
);
