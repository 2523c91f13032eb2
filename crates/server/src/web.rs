//! The web page: plain ES modules, CSS and the vendored chessgroundx, embedded in the
//! binary from `crates/server/web` and served under `/static/`, with the page itself at `/`
//! (all of it under `serve --base-path` when the site has one).
//!
//! Nothing is built at run time; `scripts/vendor_web.sh` refreshes the vendored files.

use axum::extract::{Path, State};
use axum::http::{header, StatusCode};
use axum::response::{IntoResponse, Response};

#[derive(rust_embed::Embed)]
#[folder = "web/"]
struct Files;

/// A file of the page, with its content type; the page (`index.html`) for `/` and the game URLs.
fn file(path: &str) -> Response {
    match Files::get(path) {
        Some(f) => {
            let mime = f.metadata.mimetype().to_string();
            // The files change only with the binary: cache them briefly, revalidate by ETag.
            let etag = format!("\"{}\"", hex::encode(&f.metadata.sha256_hash()[..8]));
            (
                [(header::CONTENT_TYPE, mime), (header::CACHE_CONTROL, "no-cache".into()), (header::ETAG, etag)],
                f.data.into_owned(),
            )
                .into_response()
        }
        None => (StatusCode::NOT_FOUND, axum::Json(serde_json::json!({ "error": "no such file" }))).into_response(),
    }
}

/// `GET /` and `GET /game/{id}`: the page (it routes by its URL), its addresses under the
/// site's base path, which it also states for its scripts (`<meta name="fairylab-base">`).
pub async fn page(State(app): State<crate::api::AppState>) -> Response {
    let Some(f) = Files::get("index.html") else { return file("index.html") };
    let html = page_under(&String::from_utf8_lossy(&f.data), &app.base);
    let etag = format!("\"{}\"", &crate::api::sha256_hex(&html)[..16]);
    (
        [
            (header::CONTENT_TYPE, "text/html".to_string()),
            (header::CACHE_CONTROL, "no-cache".into()),
            (header::ETAG, etag),
        ],
        html,
    )
        .into_response()
}

/// The page's HTML with its root-relative addresses (`href="/`, `src="/`) under `base` and
/// the base stated for the scripts.
fn page_under(html: &str, base: &str) -> String {
    let html = html.replace("href=\"/", &format!("href=\"{base}/")).replace("src=\"/", &format!("src=\"{base}/"));
    html.replacen(
        "<meta charset=\"utf-8\">",
        &format!("<meta charset=\"utf-8\">\n  <meta name=\"fairylab-base\" content=\"{base}\">"),
        1,
    )
}

/// `GET /static/{*path}`.
pub async fn asset(Path(path): Path<String>) -> Response {
    if path.split('/').any(|p| p == ".." || p.is_empty()) {
        return (StatusCode::NOT_FOUND, axum::Json(serde_json::json!({ "error": "no such file" }))).into_response();
    }
    file(&path)
}

#[cfg(test)]
mod tests {
    use super::{page_under, Files};

    #[test]
    fn the_page_under_a_base_path_points_below_it() {
        let page = Files::get("index.html").expect("the page");
        let html = String::from_utf8_lossy(&page.data);
        let at_root = page_under(&html, "");
        assert!(at_root.contains("<meta name=\"fairylab-base\" content=\"\">"));
        assert!(at_root.contains("src=\"/static/js/app.js\""));
        let under = page_under(&html, "/club/chess");
        assert!(under.contains("<meta name=\"fairylab-base\" content=\"/club/chess\">"));
        assert!(under.contains("src=\"/club/chess/static/js/app.js\""));
        assert!(under.contains("href=\"/club/chess/static/css/site.css\""));
        assert!(under.contains("<a href=\"/club/chess/analysis\">"));
        assert!(!under.contains("href=\"/static") && !under.contains("href=\"/\""), "{under}");
    }
}
