//! The source maps of an isolate's scripts and modules, applied to the frames of its error
//! stacks: a loader's map ([`ModuleSource::with_source_map`](crate::modules::ModuleSource)),
//! or an inline `//# sourceMappingURL=data:` comment. A map is kept as it came and parsed the
//! first time a stack points into its file: a runtime that never formats a stack never parses
//! one.

use std::cell::RefCell;
use std::collections::HashMap;

use crate::errors::frames::JsStackFrame;

/// The maps by the URL of the file they map (an isolate slot).
#[derive(Default)]
pub(crate) struct SourceMaps {
    maps: RefCell<HashMap<String, Entry>>,
}

enum Entry {
    /// The map's JSON, not parsed yet.
    Json(Vec<u8>),
    /// An inline `data:` URL, not decoded yet.
    DataUrl(String),
    /// Parsed; `None` if it did not parse (it is not tried again).
    Parsed(Option<Box<sourcemap::DecodedMap>>),
}

impl SourceMaps {
    /// The map of `url`'s file, given with it.
    pub(crate) fn add(&self, url: &str, json: Vec<u8>) {
        self.maps
            .borrow_mut()
            .insert(url.to_owned(), Entry::Json(json));
    }

    /// The map of `url`'s file if its source ends with an inline one.
    pub(crate) fn add_inline(&self, url: &str, source: &str) {
        if let Some(data_url) = inline_map(source) {
            self.maps
                .borrow_mut()
                .insert(url.to_owned(), Entry::DataUrl(data_url.to_owned()));
        }
    }

    /// Whether any map was given (the stack formatter skips the lookups when none was).
    pub(crate) fn is_empty(&self) -> bool {
        self.maps.borrow().is_empty()
    }

    /// `frame`'s file, line and column in the original source, if its file has a map that
    /// covers the position (else left as it is).
    pub(crate) fn apply(&self, frame: &mut JsStackFrame) {
        let (Some(file), Some(line)) = (&frame.file_name, frame.line_number) else {
            return;
        };
        let column = frame.column_number.unwrap_or(1);
        let mut maps = self.maps.borrow_mut();
        let Some(entry) = maps.get_mut(file) else {
            return;
        };
        let map = entry.parsed();
        let Some(token) =
            map.and_then(|map| map.lookup_token(line.saturating_sub(1), column.saturating_sub(1)))
        else {
            return;
        };
        if let Some(source) = token.get_source() {
            frame.file_name = Some(resolve(file, source));
        }
        frame.line_number = Some(token.get_src_line() + 1);
        frame.column_number = Some(token.get_src_col() + 1);
    }
}

impl Entry {
    /// The map, parsed now if it was not yet (a map that does not parse stays `None`).
    fn parsed(&mut self) -> Option<&sourcemap::DecodedMap> {
        let parsed = match self {
            Entry::Parsed(map) => return map.as_deref(),
            Entry::Json(json) => sourcemap::decode_slice(json).ok(),
            Entry::DataUrl(url) => sourcemap::decode_data_url(url).ok(),
        };
        *self = Entry::Parsed(parsed.map(Box::new));
        match self {
            Entry::Parsed(map) => map.as_deref(),
            _ => None,
        }
    }
}

/// The `data:` URL of a source's last `//# sourceMappingURL=` comment, if it is one.
fn inline_map(source: &str) -> Option<&str> {
    const COMMENT: &str = "//# sourceMappingURL=";
    let start = source.rfind(COMMENT)? + COMMENT.len();
    let url = source[start..].lines().next()?.trim();
    url.starts_with("data:application/json").then_some(url)
}

/// A map's source name as a URL, relative to the file the map is of.
fn resolve(file: &str, source: &str) -> String {
    url::Url::parse(file)
        .and_then(|base| base.join(source))
        .map_or_else(|_| source.to_owned(), String::from)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_last_inline_comment_is_the_map() {
        let source = "let a;\n//# sourceMappingURL=data:application/json;base64,AAA\n";
        assert_eq!(inline_map(source), Some("data:application/json;base64,AAA"));
        assert_eq!(inline_map("//# sourceMappingURL=main.js.map\n"), None);
        assert_eq!(inline_map("let a;"), None);
    }

    #[test]
    fn a_source_resolves_against_the_file() {
        assert_eq!(
            resolve("file:///app/dist/main.js", "../src/main.ts"),
            "file:///app/src/main.ts"
        );
        assert_eq!(resolve("main.js", "main.ts"), "main.ts");
    }
}
