//! Values printed as Node's `util.inspect` prints them (its defaults: depth 2, 80 columns,
//! arrays grouped into columns, `<ref *1>` and `[Circular *1]` for cycles), without running
//! the values' code: no getter, proxy trap, `toString` or `Symbol.toStringTag` of a script's
//! is called (a proxy prints as its target, a getter as `[Getter]`); an error whose stack
//! nothing read yet is formatted by the runtime, without the script's
//! `Error.prepareStackTrace` (so the stack the script reads later is the runtime's too). One
//! call reads and prints a bounded amount, whatever its values share. [`inspect`] is what
//! [`Runtime::inspect`](crate::Runtime::inspect) and `console.log` print. The layout is
//! here; what each kind of value prints is in `forms.rs`.

mod forms;

use forms::Extras;

/// How deep and wide [`inspect`] prints.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct InspectOptions {
    /// Levels of nesting printed below the value; deeper objects print as `[Object]`.
    pub depth: u32,
    /// The width an object is kept to one line within.
    pub break_length: usize,
}

impl Default for InspectOptions {
    fn default() -> Self {
        Self {
            depth: 2,
            break_length: 80,
        }
    }
}

/// How many elements of an array, set or map are printed before `... n more items`.
const MAX_ITEMS: usize = 100;
/// What one call prints at most, in characters of the values' own text: shared references
/// (a 10,000-character string met a million times through three nested arrays) would
/// otherwise make a few kilobytes of a tenant's heap into gigabytes of the host's. Past it,
/// each value left prints as `...`.
const MAX_OUTPUT: usize = 1 << 20;
/// How many values one call reads at most, printed or not (each costs V8 calls).
const MAX_VALUES: usize = 100_000;
/// How many levels of nested objects one line may hold (Node's `compact: 3`).
const COMPACT: u32 = 3;

/// `value` as Node's `util.inspect(value)` prints it.
pub fn inspect(
    scope: &mut v8::PinScope<'_, '_>,
    value: v8::Local<'_, v8::Value>,
    options: &InspectOptions,
) -> String {
    let mut printer = Printer {
        options: *options,
        seen: Vec::new(),
        circular: Vec::new(),
        current_depth: 0,
        indentation: 0,
        printed: 0,
        values: 0,
    };
    v8::tc_scope!(let scope, scope);
    let value = v8::Local::new(scope, value);
    printer.value(scope, value, 0)
}

struct Printer<'s> {
    options: InspectOptions,
    /// The objects being printed, outermost first: one met again is a cycle.
    seen: Vec<v8::Local<'s, v8::Object>>,
    /// The objects a cycle points back to, and their numbers.
    circular: Vec<v8::Local<'s, v8::Object>>,
    /// The nesting level of the object entered last (Node's `currentDepth`).
    current_depth: u32,
    indentation: usize,
    /// Characters of the values' own text so far (see [`MAX_OUTPUT`]).
    printed: usize,
    /// Values read so far (see [`MAX_VALUES`]).
    values: usize,
}

impl<'s> Printer<'s> {
    fn value(
        &mut self,
        scope: &mut v8::PinScope<'s, '_>,
        value: v8::Local<'s, v8::Value>,
        level: u32,
    ) -> String {
        if self.exhausted() {
            return "...".to_owned();
        }
        self.values += 1;
        let Ok(mut object) = v8::Local::<v8::Object>::try_from(value) else {
            let text = forms::primitive(scope, value);
            self.printed += text.len();
            return text;
        };
        // A proxy prints as its target, read without a trap.
        while let Ok(proxy) = v8::Local::<v8::Proxy>::try_from(object) {
            if proxy.is_revoked() {
                return "<Revoked Proxy>".to_owned();
            }
            match v8::Local::<v8::Object>::try_from(proxy.get_target(scope)) {
                Ok(target) => object = target,
                Err(_) => return "<Revoked Proxy>".to_owned(),
            }
        }
        if self.seen.contains(&object) {
            let index = match self.circular.iter().position(|seen| *seen == object) {
                Some(index) => index,
                None => {
                    self.circular.push(object);
                    self.circular.len() - 1
                }
            };
            return format!("[Circular *{}]", index + 1);
        }
        self.object(scope, object, level)
    }

    /// Whether this call has printed or read all it may.
    fn exhausted(&self) -> bool {
        self.printed >= MAX_OUTPUT || self.values >= MAX_VALUES
    }

    fn object(
        &mut self,
        scope: &mut v8::PinScope<'s, '_>,
        object: v8::Local<'s, v8::Object>,
        level: u32,
    ) -> String {
        let shape = forms::shape(scope, object);
        self.printed += shape.whole.as_ref().map_or(0, String::len);
        if let Extras::Bytes(bytes) = &shape.extras {
            self.printed += bytes.len();
        }
        let (keys, listed) = forms::own_keys(scope, object, shape.skip_indices);
        // Listing keys is reading them: a large object met through many references costs
        // its keys each time.
        self.values = self.values.saturating_add(listed);
        if keys.is_empty() && shape.empty {
            return shape.empty_form();
        }
        if let Some(base) = &shape.whole {
            if keys.is_empty() {
                return base.clone();
            }
        }
        if level > self.options.depth {
            return format!("[{}]", shape.short_name);
        }
        let level = level + 1;
        self.seen.push(object);
        self.current_depth = level;
        let mut output = Vec::new();
        let mut numeric = Vec::new();
        self.entries(
            scope,
            object,
            &shape.extras,
            level,
            &mut output,
            &mut numeric,
        );
        for key in keys {
            if self.exhausted() {
                output.push("...".to_owned());
                numeric.push(false);
                break;
            }
            let entry = self.property(scope, object, key, level);
            output.push(entry);
            numeric.push(false);
        }
        self.seen.pop();
        let base = shape.whole.clone().unwrap_or_default();
        let mut printed = self.reduce(
            output,
            &numeric,
            &base,
            &shape.braces(),
            &shape.extras,
            level,
        );
        if let Some(index) = self.circular.iter().position(|seen| *seen == object) {
            printed = format!("<ref *{}> {printed}", index + 1);
        }
        printed
    }

    /// The elements of an array, typed array, set or map, or a promise's state.
    fn entries(
        &mut self,
        scope: &mut v8::PinScope<'s, '_>,
        object: v8::Local<'s, v8::Object>,
        extras: &Extras<'s>,
        level: u32,
        output: &mut Vec<String>,
        numeric: &mut Vec<bool>,
    ) {
        match extras {
            Extras::Array(length) => {
                let mut index = 0;
                let mut present = None;
                while index < *length && output.len() < MAX_ITEMS && !self.exhausted() {
                    let looked = present.is_some();
                    let holes = forms::holes_from(scope, object, index, *length, &mut present);
                    if !looked {
                        if let Some(present) = &present {
                            self.values = self.values.saturating_add(present.len());
                        }
                    }
                    if holes > 0 {
                        let plural = if holes == 1 { "item" } else { "items" };
                        output.push(format!("<{holes} empty {plural}>"));
                        numeric.push(false);
                        index += holes;
                        continue;
                    }
                    // An element that is an accessor prints as one: its getter is not called.
                    let printed = match forms::element(scope, object, index) {
                        forms::Property::Value(element) => {
                            numeric.push(element.is_number() || element.is_big_int());
                            self.indentation += 2;
                            let printed = self.value(scope, element, level);
                            self.indentation -= 2;
                            printed
                        }
                        forms::Property::Accessor(getter, setter) => {
                            numeric.push(false);
                            accessor_text(getter, setter)
                        }
                    };
                    output.push(printed);
                    index += 1;
                }
                more_items(output, numeric, (*length - index) as usize);
            }
            Extras::Set(items) | Extras::Map(items) => {
                let is_map = matches!(extras, Extras::Map(_));
                let step = if is_map { 2 } else { 1 };
                let count = items.length() / step;
                self.indentation += 2;
                for item in 0..count.min(MAX_ITEMS as u32) {
                    if self.exhausted() {
                        break;
                    }
                    let key = items
                        .get_index(scope, item * step)
                        .unwrap_or_else(|| v8::undefined(scope).into());
                    let mut entry = self.value(scope, key, level);
                    if is_map {
                        let value = items
                            .get_index(scope, item * step + 1)
                            .unwrap_or_else(|| v8::undefined(scope).into());
                        entry = format!("{entry} => {}", self.value(scope, value, level));
                    }
                    output.push(entry);
                    numeric.push(false);
                }
                self.indentation -= 2;
                more_items(
                    output,
                    numeric,
                    count.saturating_sub(MAX_ITEMS as u32) as usize,
                );
            }
            Extras::Promise(state) => match state {
                None => output.push("<pending>".to_owned()),
                Some((fulfilled, result)) => {
                    self.indentation += 2;
                    let result = self.value(scope, *result, level);
                    self.indentation -= 2;
                    output.push(if *fulfilled {
                        result
                    } else {
                        format!("<rejected> {result}")
                    });
                }
            },
            Extras::Bytes(contents) => output.push(contents.clone()),
            Extras::None => {}
        }
        numeric.resize(output.len(), false);
    }

    /// `key: value`, `key: [Getter]`...
    fn property(
        &mut self,
        scope: &mut v8::PinScope<'s, '_>,
        object: v8::Local<'s, v8::Object>,
        key: v8::Local<'s, v8::Name>,
        level: u32,
    ) -> String {
        let name = forms::key_name(scope, key);
        self.printed += name.len();
        let value = match forms::own_property(scope, object, key) {
            forms::Property::Value(value) => {
                self.indentation += 2;
                let printed = self.value(scope, value, level);
                self.indentation -= 2;
                printed
            }
            forms::Property::Accessor(getter, setter) => accessor_text(getter, setter),
        };
        format!("{name}: {value}")
    }

    /// The entries on one line if they fit, else one per line (or in columns, for arrays).
    fn reduce(
        &self,
        mut output: Vec<String>,
        numeric: &[bool],
        base: &str,
        braces: &(String, &'static str),
        extras: &Extras,
        level: u32,
    ) -> String {
        let entries = output.len();
        if extras.is_array() && entries > 6 {
            let has_more = ends_with_more(&output);
            output = self.group(output, numeric, has_more);
        }
        let prefix = if base.is_empty() {
            String::new()
        } else {
            format!("{base} ")
        };
        if self.current_depth - level < COMPACT && entries == output.len() {
            let start = output.len() + self.indentation + braces.0.len() + base.len() + 10;
            if self.below_break_length(&output, start, base) {
                let joined = output.join(", ");
                if !joined.contains('\n') {
                    return format!("{prefix}{} {joined} {}", braces.0, braces.1);
                }
            }
        }
        let indentation = format!("\n{}", " ".repeat(self.indentation));
        format!(
            "{prefix}{}{indentation}  {}{indentation}{}",
            braces.0,
            output.join(&format!(",{indentation}  ")),
            braces.1
        )
    }

    fn below_break_length(&self, output: &[String], start: usize, base: &str) -> bool {
        let mut total = output.len() + start;
        if total + output.len() > self.options.break_length {
            return false;
        }
        for entry in output {
            total += entry.chars().count();
            if total > self.options.break_length {
                return false;
            }
        }
        base.is_empty() || !base.contains('\n')
    }

    /// Node's `groupArrayElements`: many short entries in aligned columns.
    fn group(&self, output: Vec<String>, numeric: &[bool], has_more: bool) -> Vec<String> {
        let mut total = 0;
        let mut max = 0;
        let counted = if has_more {
            output.len() - 1
        } else {
            output.len()
        };
        let separator = 2;
        let lengths: Vec<usize> = output[..counted]
            .iter()
            .map(|e| e.chars().count())
            .collect();
        for &length in &lengths {
            total += length + separator;
            max = max.max(length);
        }
        let actual_max = max + separator;
        if !(actual_max * 3 + self.indentation < self.options.break_length
            && (total as f64 / actual_max as f64 > 5.0 || max <= 6))
        {
            return output;
        }
        let average_bias = (actual_max as f64 - total as f64 / output.len() as f64).sqrt();
        let biased_max = (actual_max as f64 - 3.0 - average_bias).max(1.0);
        let columns = ((2.5 * biased_max * counted as f64).sqrt() / biased_max)
            .round()
            .min(((self.options.break_length - self.indentation) / actual_max) as f64)
            .min(f64::from(COMPACT * 4))
            .min(15.0) as usize;
        if columns <= 1 {
            return output;
        }
        let mut line_lengths = Vec::with_capacity(columns);
        for column in 0..columns {
            let longest = (column..counted)
                .step_by(columns)
                .map(|i| lengths[i])
                .max()
                .unwrap_or(0);
            line_lengths.push(longest + separator);
        }
        let pad_start = numeric[..counted].iter().all(|numeric| *numeric);
        let mut grouped = Vec::new();
        for row in (0..counted).step_by(columns) {
            let end = (row + columns).min(counted);
            let mut line = String::new();
            for j in row..end - 1 {
                let cell = format!("{}, ", output[j]);
                line.push_str(&pad(&cell, line_lengths[j - row], pad_start));
            }
            let last = end - 1;
            if pad_start {
                line.push_str(&pad(
                    &output[last],
                    line_lengths[last - row] - separator,
                    true,
                ));
            } else {
                line.push_str(&output[last]);
            }
            grouped.push(line);
        }
        if has_more {
            grouped.push(output[counted].clone());
        }
        grouped
    }
}

/// `[Getter]`, `[Setter]` or `[Getter/Setter]`: an accessor is printed, not called.
fn accessor_text(getter: bool, setter: bool) -> String {
    match (getter, setter) {
        (true, true) => "[Getter/Setter]",
        (true, false) => "[Getter]",
        (false, _) => "[Setter]",
    }
    .to_owned()
}

fn pad(text: &str, width: usize, start: bool) -> String {
    let fill = " ".repeat(width.saturating_sub(text.chars().count()));
    if start {
        format!("{fill}{text}")
    } else {
        format!("{text}{fill}")
    }
}

fn more_items(output: &mut Vec<String>, numeric: &mut Vec<bool>, more: usize) {
    if more > 0 {
        let plural = if more == 1 { "" } else { "s" };
        output.push(format!("... {more} more item{plural}"));
        numeric.push(false);
    }
}

fn ends_with_more(output: &[String]) -> bool {
    output
        .last()
        .is_some_and(|last| last.starts_with("... ") && last.contains(" more item"))
}
