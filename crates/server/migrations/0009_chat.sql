-- A game's chat between its two players (POST/GET /api/games/{id}/chat): each message with its
-- number in the game (1, 2, ...), the side that wrote it, and when.
CREATE TABLE chat (
    game_id TEXT NOT NULL,
    seq BIGINT NOT NULL,
    side TEXT NOT NULL,
    text TEXT NOT NULL,
    created_at BIGINT NOT NULL,
    PRIMARY KEY (game_id, seq)
);
