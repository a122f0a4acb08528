//! Ids are names, not paths: which ids and asset paths a manifest may hold.

/// Why `id` cannot name a document, if it cannot: ids become file names, so a path separator, a
/// `..` or an empty id could reach a file outside its folder.
pub fn id_problem(id: &str) -> Option<&'static str> {
    if id.is_empty() {
        Some("an id is empty")
    } else if id.contains(['/', '\\']) {
        Some("an id contains a path separator")
    } else if id.contains("..") {
        Some("an id contains `..`")
    } else if id.starts_with('.') {
        Some("an id starts with `.` (a hidden file)")
    } else if id.chars().any(char::is_control) {
        Some("an id contains a control character")
    } else {
        None
    }
}

/// What an id may look like, for the `expected` part of a diagnostic.
pub const ID_EXPECTED: &str =
    "a name without `/`, `\\`, `..`, a leading `.` or control characters, such as `street-block`";

/// Why `asset_path` cannot be an asset folder, judged on the text alone: asset paths are relative
/// to the project folder. (Where a relative path leads is judged by the caller that reads the
/// disk, and reported through `ProjectSources::refused_asset_paths`.)
pub fn asset_path_problem(asset_path: &str) -> Option<&'static str> {
    let windows_drive = asset_path.as_bytes().get(1) == Some(&b':');
    if asset_path.is_empty() {
        Some("an asset path is empty")
    } else if asset_path.starts_with(['/', '\\']) || windows_drive {
        Some("an asset path is absolute")
    } else {
        None
    }
}

/// The one spelling of an asset folder: `.` components, repeated and trailing `/` removed, so
/// `"assets"`, `"./assets"` and `"assets/"` name one folder (and its families are read once).
/// `..` is kept (resolving it lexically would be wrong past a link); the project folder itself is
/// `"."`. Where two spellings still lead to one folder on disk, the families they share are
/// duplicate ids, reported by the loader.
pub fn normal_asset_path(asset_path: &str) -> String {
    let parts: Vec<&str> = asset_path
        .split('/')
        .filter(|part| !part.is_empty() && *part != ".")
        .collect();
    if parts.is_empty() {
        ".".to_owned()
    } else {
        parts.join("/")
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_that_are_paths_are_refused() {
        assert_eq!(id_problem("street-block"), None);
        assert_eq!(id_problem("a.b"), None);
        assert_eq!(
            id_problem("../../etc/passwd"),
            Some("an id contains a path separator")
        );
        assert_eq!(id_problem(".."), Some("an id contains `..`"));
        assert_eq!(id_problem("a..b"), Some("an id contains `..`"));
        assert_eq!(
            id_problem(".hidden"),
            Some("an id starts with `.` (a hidden file)")
        );
        assert_eq!(id_problem(""), Some("an id is empty"));
        assert_eq!(id_problem("a\\b"), Some("an id contains a path separator"));
    }

    #[test]
    fn absolute_asset_paths_are_refused() {
        assert_eq!(asset_path_problem("../../assets"), None);
        assert_eq!(
            asset_path_problem("/etc"),
            Some("an asset path is absolute")
        );
        assert_eq!(
            asset_path_problem("/proc/self/fd"),
            Some("an asset path is absolute")
        );
        assert_eq!(
            asset_path_problem("C:\\assets"),
            Some("an asset path is absolute")
        );
        assert_eq!(asset_path_problem(""), Some("an asset path is empty"));
    }

    #[test]
    fn asset_paths_have_one_spelling() {
        assert_eq!(normal_asset_path("assets"), "assets");
        assert_eq!(normal_asset_path("./assets"), "assets");
        assert_eq!(normal_asset_path("assets/"), "assets");
        assert_eq!(normal_asset_path(".//assets/./x//"), "assets/x");
        assert_eq!(normal_asset_path("../../assets"), "../../assets");
        assert_eq!(normal_asset_path("./"), ".");
        assert_eq!(normal_asset_path("."), ".");
    }
}
