-- The single server process's heartbeat: when it was last known to run. After a crash (no
-- clean stop recorded) the time from the last heartbeat to the next start counts on no clock
-- either (`pause.rs`), as a server's fault should decide no game.
CREATE TABLE alive (
    id INTEGER PRIMARY KEY,
    at BIGINT NOT NULL
);
