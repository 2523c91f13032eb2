-- Several server processes on one database: each process's heartbeat and address, and which
-- process owns each game (the others forward its requests there). A standing draw offer is
-- part of the game, so it survives a restart.
CREATE TABLE servers (
    id TEXT PRIMARY KEY,
    url TEXT NOT NULL,
    heartbeat_at BIGINT NOT NULL
);

CREATE TABLE owners (
    game_id TEXT PRIMARY KEY REFERENCES games (id),
    server_id TEXT NOT NULL,
    since BIGINT NOT NULL
);

CREATE INDEX owners_server ON owners (server_id);

ALTER TABLE games ADD COLUMN draw_offer TEXT;
