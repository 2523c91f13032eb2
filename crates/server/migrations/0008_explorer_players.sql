-- The opening explorer by who played (GET /api/explorer?players=): `players` is 'people' for a
-- game between two people (or one person holding both seats) and 'ai' for a person against the
-- AI. The rows before this migration did not say, so they are dropped and every finished game
-- is counted again by the indexer (games.explored reset), as it counts games on start.
DROP TABLE explorer;

CREATE TABLE explorer (
    variant TEXT NOT NULL,
    position TEXT NOT NULL,
    players TEXT NOT NULL,
    uci TEXT NOT NULL,
    white BIGINT NOT NULL,
    draws BIGINT NOT NULL,
    black BIGINT NOT NULL,
    last_game TEXT NOT NULL,
    last_at BIGINT NOT NULL,
    PRIMARY KEY (variant, position, players, uci)
);

UPDATE games SET explored = 0 WHERE explored <> 0;
