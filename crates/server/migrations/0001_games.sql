-- fairylab play server: games and their moves (one row per acknowledged ply).
-- The same SQL runs on SQLite and PostgreSQL.
CREATE TABLE games (
    id TEXT PRIMARY KEY,
    variant TEXT NOT NULL,
    options TEXT NOT NULL,
    start_fen TEXT NOT NULL,
    white_player TEXT NOT NULL,
    black_player TEXT NOT NULL,
    white_token TEXT,
    black_token TEXT,
    white_invite TEXT,
    black_invite TEXT,
    seed TEXT NOT NULL,
    seed_hash TEXT NOT NULL,
    movetime_ms BIGINT NOT NULL,
    status TEXT NOT NULL,
    result TEXT,
    reason TEXT,
    created_at BIGINT NOT NULL,
    updated_at BIGINT NOT NULL
);

CREATE INDEX games_status ON games (status);

CREATE TABLE moves (
    game_id TEXT NOT NULL REFERENCES games (id),
    ply BIGINT NOT NULL,
    uci TEXT NOT NULL,
    event TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    PRIMARY KEY (game_id, ply)
);
