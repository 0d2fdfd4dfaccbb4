//! The supported-types tables (`runtime_core/src/kinds.md`, which the README links and the
//! crate docs include), generated from the kind table (`cargo xtask docs` writes them; a test
//! fails when they are stale).

use crate::ir::{ArgKind, FastArg, FastConvert, FastRet, RetKind};

/// Rows of (spellings, what JavaScript sees, fast path), kinds that agree on the last two
/// merged into one row, in table order.
fn rows(kinds: impl IntoIterator<Item = (Vec<String>, &'static str, &'static str)>) -> String {
    let mut rows: Vec<(Vec<String>, &str, &str)> = Vec::new();
    for (spellings, js, fast) in kinds {
        match rows.iter_mut().find(|row| (row.1, row.2) == (js, fast)) {
            Some(row) => {
                for spelling in spellings {
                    if !row.0.contains(&spelling) {
                        row.0.push(spelling);
                    }
                }
            }
            None => rows.push((spellings, js, fast)),
        }
    }
    rows.iter()
        .map(|(spellings, js, fast)| {
            let spellings: Vec<String> = spellings.iter().map(|s| format!("`{s}`")).collect();
            format!("| {} | {js} | {fast} |\n", spellings.join(", "))
        })
        .collect()
}

/// The markdown tables of argument and return kinds.
pub fn kinds_markdown() -> String {
    let args = ArgKind::examples().into_iter().map(|kind| {
        let fast = match kind.fast() {
            FastArg::Unsupported(_) => "no",
            FastArg::Param {
                convert: FastConvert::FromOneByte { serde: false },
                ..
            } => "yes, for sequential one-byte strings, if the type reads them (`FromV8::READS_ONE_BYTE`: `String`, the derive's newtypes of one and enums with unit variants)",
            FastArg::Param { ctype, .. } if ctype.borrows_v8_heap() => {
                "yes, for sequential one-byte strings"
            }
            _ => "yes",
        };
        (vec![kind.spelling()], kind.accepts(), fast)
    });
    let rets = RetKind::examples().into_iter().map(|kind| {
        let fast = match kind.fast() {
            FastRet::Unsupported(_) => "no",
            FastRet::Void | FastRet::Value { .. } | FastRet::Status => "yes",
        };
        (kind.spellings(), kind.gives(), fast)
    });
    format!(
        "| argument | JavaScript passes | fast path |\n|---|---|---|\n{}\n\
         `Option<T>` of any argument JavaScript passes: `undefined`/`null` (or missing) is `None`; \
         fast for numbers.\n\n\
         | return | JavaScript gets | fast path |\n|---|---|---|\n{}\n\
         `Option<T>` of any return: `None` is `null` (slow path). `Result<T, E>` of any: `Err` \
         throws.\n",
        rows(args),
        rows(rets)
    )
}
