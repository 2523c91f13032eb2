-- The single server process's clean stops and restarts: the time between them does not count on
-- any clock or deadline (`pause.rs`). A stop without its restart has resumed_at null.
CREATE TABLE pauses (
    stopped_at BIGINT NOT NULL,
    resumed_at BIGINT
);
