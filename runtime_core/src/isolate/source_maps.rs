//! The source maps of an isolate's scripts and modules, applied to the frames of its error
//! stacks: a loader's map ([`ModuleSource::with_source_map`](crate::modules::ModuleSource)),
//! or an inline `//# sourceMappingURL=data:` comment. A map is kept as it came and parsed the
//! first time a stack points into its file: a runtime that never formats a stack never parses
//! one.

use std::cell::{Cell, RefCell};
use std::collections::HashMap;
use std::panic::{catch_unwind, AssertUnwindSafe};

use crate::errors::frames::JsStackFrame;

/// What each name and source of a parsed map is counted as beyond its text (an `Arc<str>`
/// and its allocation's overhead).
const PER_STRING: usize = 48;
/// How deep an index map's sections are counted (the crate parses no deeper either way).
const MAX_SECTION_DEPTH: usize = 8;

/// The maps by the URL of the file they map (an isolate slot). What they hold is counted as
/// the isolate's external memory, so that a runtime's memory budget sees it: a tenant's
/// inline maps are its memory.
#[derive(Default)]
pub(crate) struct SourceMaps {
    maps: RefCell<HashMap<String, Entry>>,
    /// The bytes counted, the sum of the entries' [`Entry::size`].
    counted: Cell<usize>,
}

enum Entry {
    /// The map's JSON, not parsed yet.
    Json(Vec<u8>),
    /// An inline `data:` URL, not decoded yet.
    DataUrl(String),
    /// Parsed (`None` if it did not parse: it is not tried again), and what it is counted as.
    Parsed(Option<Box<sourcemap::DecodedMap>>, usize),
}

impl SourceMaps {
    /// The map of `url`'s file, given with it.
    pub(crate) fn add(isolate: &mut v8::Isolate, url: &str, json: Vec<u8>) {
        Self::update(isolate, |maps| maps.replace(url, Some(Entry::Json(json))));
    }

    /// The map of `url`'s file if its source ends with an inline one; else `url` has none
    /// (a map an earlier file of the same name had is dropped).
    pub(crate) fn add_inline(isolate: &mut v8::Isolate, url: &str, source: &str) {
        let entry = inline_map(source).map(|data_url| Entry::DataUrl(data_url.to_owned()));
        if entry.is_none() && isolate.get_slot::<Self>().is_none_or(Self::is_empty) {
            return;
        }
        Self::update(isolate, |maps| maps.replace(url, entry));
    }

    /// Each frame's file, line and column in the original source, where its file has a map
    /// that covers the position (else left as it is).
    pub(crate) fn apply(isolate: &mut v8::Isolate, frames: &mut [JsStackFrame]) {
        if isolate.get_slot::<Self>().is_none_or(Self::is_empty) {
            return;
        }
        Self::update(isolate, |maps| {
            let before = maps.counted.get();
            frames.iter_mut().for_each(|frame| maps.apply_one(frame));
            maps.counted.get() as i64 - before as i64
        });
    }

    /// Runs `change` on the isolate's maps and counts the bytes it added or freed.
    fn update(isolate: &mut v8::Isolate, change: impl FnOnce(&Self) -> i64) {
        let Some(maps) = isolate.get_slot::<Self>() else {
            return;
        };
        let delta = change(maps);
        if delta != 0 {
            isolate.adjust_amount_of_external_allocated_memory(delta);
        }
    }

    /// Whether any map was given (the stack formatter skips the lookups when none was).
    fn is_empty(&self) -> bool {
        self.maps.borrow().is_empty()
    }

    /// Puts `entry` as `url`'s map (none: removes it); the change in bytes counted.
    fn replace(&self, url: &str, entry: Option<Entry>) -> i64 {
        let mut maps = self.maps.borrow_mut();
        let added = entry.as_ref().map_or(0, Entry::size);
        let removed = match entry {
            Some(entry) => maps.insert(url.to_owned(), entry),
            None => maps.remove(url),
        }
        .map_or(0, |old| old.size());
        self.counted.set(self.counted.get() + added - removed);
        added as i64 - removed as i64
    }

    fn apply_one(&self, frame: &mut JsStackFrame) {
        let (Some(file), Some(line)) = (&frame.file_name, frame.line_number) else {
            return;
        };
        let column = frame.column_number.unwrap_or(1);
        let mut maps = self.maps.borrow_mut();
        let Some(entry) = maps.get_mut(file) else {
            return;
        };
        let size = entry.size();
        entry.parse();
        self.counted.set(self.counted.get() + entry.size() - size);
        let Entry::Parsed(Some(map), _) = entry else {
            return;
        };
        let Some((source, src_line, src_col)) = lookup(map, line, column) else {
            return;
        };
        if let Some(source) = source {
            frame.file_name = Some(resolve(file, &source));
        }
        frame.line_number = Some(src_line);
        frame.column_number = Some(src_col);
    }
}

/// The original source, line and column (1-based) of a generated position (1-based), if the
/// map has a token there with a position in a source. A map is the tenant's: the `sourcemap`
/// crate's arithmetic on it may overflow (a panic in a build with overflow checks, inside a
/// V8 callback, where a panic aborts), so a lookup that panics is a position left unmapped.
fn lookup(
    map: &sourcemap::DecodedMap,
    line: u32,
    column: u32,
) -> Option<(Option<String>, u32, u32)> {
    catch_unwind(AssertUnwindSafe(|| {
        let token = map.lookup_token(line.checked_sub(1)?, column.checked_sub(1)?)?;
        // A token of one field (no source) has no original position; a delta that made the
        // position -1 is none either.
        if !token.has_source() {
            return None;
        }
        let src_line = token.get_src_line().checked_add(1)?;
        let src_col = token.get_src_col().checked_add(1)?;
        Some((token.get_source().map(str::to_owned), src_line, src_col))
    }))
    .ok()
    .flatten()
}

impl Entry {
    /// What the entry is counted as.
    fn size(&self) -> usize {
        match self {
            Entry::Json(json) => json.capacity(),
            Entry::DataUrl(url) => url.capacity(),
            Entry::Parsed(_, size) => *size,
        }
    }

    /// Parses the map if it was not yet (a map that does not parse, or whose parsing panics,
    /// stays `None`), counted as what the parsed map holds.
    fn parse(&mut self) {
        let (parsed, json_length) = match self {
            Entry::Parsed(..) => return,
            Entry::Json(json) => (
                catch_unwind(|| sourcemap::decode_slice(json).ok())
                    .ok()
                    .flatten(),
                json.len(),
            ),
            Entry::DataUrl(url) => (
                catch_unwind(|| sourcemap::decode_data_url(url).ok())
                    .ok()
                    .flatten(),
                // The JSON's length, from its base64's.
                url.split_once(',')
                    .map_or(url.len(), |(_, base64)| base64.len())
                    / 4
                    * 3,
            ),
        };
        let size = parsed
            .as_ref()
            .map_or(0, |map| json_length.saturating_add(parsed_size(map, 0)));
        *self = Entry::Parsed(parsed.map(Box::new), size);
    }
}

/// What a parsed map holds beyond the text of its JSON: its tokens, and each name and source
/// (a crafted map of one-letter segments or names holds a dozen times its JSON).
fn parsed_size(map: &sourcemap::DecodedMap, depth: usize) -> usize {
    let regular = |map: &sourcemap::SourceMap| {
        (map.get_token_count() as usize)
            .saturating_mul(std::mem::size_of::<sourcemap::RawToken>())
            .saturating_add(
                (map.get_name_count() as usize + map.get_source_count() as usize)
                    .saturating_mul(PER_STRING),
            )
    };
    match map {
        sourcemap::DecodedMap::Regular(map) => regular(map),
        sourcemap::DecodedMap::Hermes(map) => regular(map),
        sourcemap::DecodedMap::Index(index) if depth < MAX_SECTION_DEPTH => index
            .sections()
            .filter_map(|section| section.get_sourcemap())
            .map(|map| parsed_size(map, depth + 1))
            .fold(0, usize::saturating_add),
        sourcemap::DecodedMap::Index(_) => 0,
    }
}

/// The URL of a source's last `//# sourceMappingURL=` comment, if it has one.
pub(crate) fn source_mapping_url(source: &str) -> Option<&str> {
    const COMMENT: &str = "//# sourceMappingURL=";
    let start = source.rfind(COMMENT)? + COMMENT.len();
    let url = source[start..].lines().next()?.trim();
    (!url.is_empty()).then_some(url)
}

/// The `data:` URL of a source's last `//# sourceMappingURL=` comment, if it is one.
fn inline_map(source: &str) -> Option<&str> {
    source_mapping_url(source).filter(|url| url.starts_with("data:application/json"))
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

    #[test]
    fn a_crafted_map_is_counted_as_what_it_parses_to() {
        // Segments of one letter were counted at four times their JSON: each is a token of
        // 28 bytes for 2 bytes of JSON.
        let mappings = vec!["A"; 10_000].join(",");
        let json =
            format!(r#"{{"version":3,"sources":["a.ts"],"names":[],"mappings":"{mappings}"}}"#);
        let map = sourcemap::decode_slice(json.as_bytes()).unwrap();
        let holds = parsed_size(&map, 0);
        assert!(
            holds >= 10_000 * std::mem::size_of::<sourcemap::RawToken>(),
            "{holds} for {} bytes",
            json.len()
        );
    }

    #[test]
    fn what_maps_hold_is_the_isolates_external_memory() {
        crate::init_v8();
        let mut isolate = v8::Isolate::new(Default::default());
        isolate.set_slot(SourceMaps::default());
        let external =
            |isolate: &mut v8::Isolate| isolate.adjust_amount_of_external_allocated_memory(0);
        let before = external(&mut isolate);
        let json = br#"{"version":3,"sources":["a.ts"],"names":[],"mappings":"AAAA"}"#;
        let url = format!(
            "data:application/json;base64,{}",
            sourcemap::SourceMap::from_slice(json)
                .unwrap()
                .to_data_url()
                .unwrap()
                .split_once(',')
                .unwrap()
                .1
        );
        let source = format!("x;\n//# sourceMappingURL={url}\n");
        SourceMaps::add_inline(&mut isolate, "a.js", &source);
        let kept = external(&mut isolate) - before;
        assert!(kept >= url.len() as i64, "{kept}");
        // Parsed on first use: counted as what the parsed map holds.
        let mut frame = JsStackFrame {
            file_name: Some("a.js".to_owned()),
            line_number: Some(1),
            column_number: Some(1),
            ..JsStackFrame::default()
        };
        SourceMaps::apply(&mut isolate, std::slice::from_mut(&mut frame));
        assert_eq!(frame.file_name.as_deref(), Some("a.ts"));
        // The JSON (its length from the base64's, within 2 bytes), a token, a source.
        let parsed = (external(&mut isolate) - before) as usize;
        let holds = std::mem::size_of::<sourcemap::RawToken>() + PER_STRING;
        assert!(
            (json.len() + holds..json.len() + holds + 3).contains(&parsed),
            "{parsed}"
        );
        // The same file again without a map: nothing held, nothing counted.
        SourceMaps::add_inline(&mut isolate, "a.js", "x;");
        assert_eq!(external(&mut isolate), before);
    }
}
