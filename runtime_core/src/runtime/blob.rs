//! A snapshot blob's format: V8's blob, then what Rust keeps of the heap ([`Meta`]), then a
//! trailer that says what the blob was made for and lets a runtime check it before V8 sees a
//! byte:
//!
//! `[V8 blob][meta][meta length: u32][fingerprint: u64][V8 version][its length: u32]`
//! `[checksum: u64][format: u32][MAGIC]`
//!
//! A trailer, so that the V8 blob is a prefix of a `Vec` the runtime can hand V8 without a
//! copy. The checksum (XXH3, 64 bits) covers every byte before it: a blob damaged on disk or
//! in transit is refused with an error. It guards against corruption, not malice: a blob is
//! code, trusted as the host's binary is (V8 trusts what it deserializes).

use std::borrow::Cow;
use std::collections::HashSet;
use std::sync::Mutex;

use crate::modules::map::{Import, ModuleRecord};
use crate::modules::ModuleType;
use crate::ops::ops_object::OpTable;
use crate::JsError;

const MAGIC: &[u8; 8] = b"OPWSNAP\0";
const FORMAT: u32 = 5;

/// A snapshot, checked and split: V8's blob, and what to restore from it.
pub(crate) struct Restore {
    pub(crate) v8_blob: Cow<'static, [u8]>,
    pub(crate) meta: Meta,
}

/// Indices of the snapshot data and the module records.
#[derive(Default)]
pub(crate) struct Meta {
    pub(crate) ops_object: usize,
    pub(crate) interrupt_check: usize,
    pub(crate) left_marker: usize,
    pub(crate) async_wrap: usize,
    /// `track(promise, id)` of the calls in flight.
    pub(crate) call_track: usize,
    /// Indices of the ops whose functions the ops object made.
    pub(crate) made_ops: Vec<usize>,
    /// Isolate data indices of the class templates, in registration order.
    pub(crate) class_templates: Vec<usize>,
    /// Indices of what the globals that keep something were given, in extension order.
    pub(crate) installed: Vec<usize>,
    pub(crate) modules: Vec<ModuleRecord>,
}

/// Reads `blob`'s trailer from the end.
struct Trailer<'a> {
    blob: &'a [u8],
    end: usize,
}

impl<'a> Trailer<'a> {
    fn take(&mut self, n: usize) -> Option<&'a [u8]> {
        self.end = self.end.checked_sub(n)?;
        Some(&self.blob[self.end..self.end + n])
    }

    fn u32(&mut self) -> Option<u32> {
        Some(u32::from_le_bytes(self.take(4)?.try_into().ok()?))
    }

    fn u64(&mut self) -> Option<u64> {
        Some(u64::from_le_bytes(self.take(8)?.try_into().ok()?))
    }
}

/// Checks `blob` whole (its checksum, the V8 it was made by, what it was made for: the
/// `expected` fingerprint) and splits it into V8's part and the restore data.
pub(crate) fn open(blob: Cow<'static, [u8]>, expected: u64) -> Result<Restore, JsError> {
    let refused = |why: &str| JsError::host("Error", &format!("startup snapshot: {why}"));
    let corrupt = || refused("corrupt (its checksum does not match): make it again");
    let mut trailer = Trailer {
        blob: &blob,
        end: blob.len(),
    };
    if trailer.take(MAGIC.len()) != Some(MAGIC) {
        return Err(refused("not a snapshot made by SnapshotBuilder"));
    }
    let format = trailer.u32().ok_or_else(corrupt)?;
    if format != FORMAT {
        return Err(refused(&format!(
            "made by another runtime_core (format {format}, this one reads {FORMAT})"
        )));
    }
    let checksum = trailer.u64().ok_or_else(corrupt)?;
    let compiled_in = matches!(blob, Cow::Borrowed(_));
    if !verified(&blob[..trailer.end], compiled_in, checksum) {
        return Err(corrupt());
    }
    let version_len = trailer.u32().ok_or_else(corrupt)? as usize;
    let version = trailer.take(version_len).ok_or_else(corrupt)?;
    if version != v8::VERSION_STRING.as_bytes() {
        return Err(refused(&format!(
            "made by V8 {}, this is V8 {}",
            String::from_utf8_lossy(version),
            v8::VERSION_STRING
        )));
    }
    if trailer.u64().ok_or_else(corrupt)? != expected {
        return Err(refused(
            "made for other extensions or options (ops, classes, their order, extension \
             JavaScript, console, metrics, stack traces or V8 flags differ): build it with the \
             same RuntimeOptions and flags as the runtime",
        ));
    }
    let meta_len = trailer.u32().ok_or_else(corrupt)? as usize;
    let meta = trailer.take(meta_len).ok_or_else(corrupt)?;
    let meta = Meta::decode(meta).ok_or_else(corrupt)?;
    let v8_len = trailer.end;
    let v8_blob = match blob {
        Cow::Borrowed(bytes) => Cow::Borrowed(&bytes[..v8_len]),
        Cow::Owned(mut bytes) => {
            bytes.truncate(v8_len);
            Cow::Owned(bytes)
        }
    };
    Ok(Restore { v8_blob, meta })
}

/// Whether `bytes` hash to `checksum`. Bytes of a `'static` blob (compiled into the host,
/// immutable for the process) are checked once per process; any others every time.
fn verified(bytes: &[u8], compiled_in: bool, checksum: u64) -> bool {
    static CHECKED: Mutex<Option<HashSet<(usize, usize)>>> = Mutex::new(None);
    let key = compiled_in.then_some((bytes.as_ptr() as usize, bytes.len()));
    let checked = || {
        CHECKED
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner)
    };
    if let Some(key) = key {
        if checked().as_ref().is_some_and(|set| set.contains(&key)) {
            return true;
        }
    }
    let matches = xxhash_rust::xxh3::xxh3_64(bytes) == checksum;
    if let (Some(key), true) = (key, matches) {
        checked().get_or_insert_with(HashSet::new).insert(key);
    }
    matches
}

/// V8's blob with `meta`, `fingerprint`, the V8 version and the checksum after it.
pub(crate) fn seal(v8_blob: &[u8], meta: &Meta, fingerprint: u64) -> Vec<u8> {
    let meta = meta.encode();
    let version = v8::VERSION_STRING.as_bytes();
    let mut blob = Vec::with_capacity(v8_blob.len() + meta.len() + version.len() + 40);
    blob.extend_from_slice(v8_blob);
    blob.extend_from_slice(&meta);
    blob.extend_from_slice(&(meta.len() as u32).to_le_bytes());
    blob.extend_from_slice(&fingerprint.to_le_bytes());
    blob.extend_from_slice(version);
    blob.extend_from_slice(&(version.len() as u32).to_le_bytes());
    let checksum = xxhash_rust::xxh3::xxh3_64(&blob);
    blob.extend_from_slice(&checksum.to_le_bytes());
    blob.extend_from_slice(&FORMAT.to_le_bytes());
    blob.extend_from_slice(MAGIC);
    blob
}

/// What the snapshot's heap depends on, hashed (XXH3): runtime_core's version, the V8 flags
/// the process started with, the ops object's name, per op its name, shape, whether it is
/// internal and which of its functions the runtime registers; the classes; and each
/// extension's JavaScript (its scripts and modules, which the heap holds compiled).
pub(crate) fn fingerprint(
    ops_object_name: &str,
    ops: &OpTable,
    classes: &[&crate::ClassDecl],
    extensions: &[crate::Extension],
) -> u64 {
    let mut hasher = xxhash_rust::xxh3::Xxh3::new();
    let mut feed = |bytes: &[u8]| {
        hasher.update(&(bytes.len() as u64).to_le_bytes());
        hasher.update(bytes);
    };
    feed(env!("CARGO_PKG_VERSION").as_bytes());
    feed(crate::isolate::platform::flags().as_bytes());
    feed(ops_object_name.as_bytes());
    for (index, op_ctx) in ops.ctxs.iter().enumerate() {
        let decl = op_ctx.decl;
        feed(decl.name.as_bytes());
        feed(&[
            decl.arity() as u8,
            decl.fast_fn.is_some() as u8,
            decl.flags.async_op.is_some() as u8,
            op_ctx.metrics.is_some() as u8,
            op_ctx.stack_trace.is_some() as u8,
            ops.is_internal(index) as u8,
        ]);
    }
    for class in classes {
        feed(class.name.as_bytes());
        feed(&[class.members.len() as u8, class.constructor.is_some() as u8]);
    }
    for extension in extensions {
        feed(extension.name().as_bytes());
        for source in extension.js_sources().iter().chain(extension.esm_sources()) {
            feed(source.specifier.as_bytes());
            feed(source.code.as_bytes());
            feed(&[extension.is_public_esm(source.specifier) as u8]);
        }
        // A module made at run time is held to the snapshot too: another tenant's is refused.
        for (specifier, code) in extension.made_esm_sources() {
            feed(specifier.as_bytes());
            feed(code.as_bytes());
            feed(&[extension.is_public_esm(specifier) as u8]);
        }
        feed(extension.entry_point().unwrap_or("").as_bytes());
    }
    hasher.digest()
}

impl Meta {
    fn encode(&self) -> Vec<u8> {
        let mut out = Vec::new();
        let num = |out: &mut Vec<u8>, n: usize| out.extend_from_slice(&(n as u32).to_le_bytes());
        let text = |out: &mut Vec<u8>, s: &str| {
            num(out, s.len());
            out.extend_from_slice(s.as_bytes());
        };
        for index in [
            self.ops_object,
            self.interrupt_check,
            self.left_marker,
            self.async_wrap,
            self.call_track,
        ] {
            num(&mut out, index);
        }
        num(&mut out, self.made_ops.len());
        for &index in &self.made_ops {
            num(&mut out, index);
        }
        num(&mut out, self.class_templates.len());
        for &index in &self.class_templates {
            num(&mut out, index);
        }
        num(&mut out, self.installed.len());
        for &index in &self.installed {
            num(&mut out, index);
        }
        // A module type as its attribute, JavaScript as none.
        let module_type =
            |out: &mut Vec<u8>, module_type: &ModuleType| match module_type.attribute() {
                None => num(out, 0),
                Some(name) => {
                    num(out, 1);
                    text(out, name);
                }
            };
        num(&mut out, self.modules.len());
        for record in &self.modules {
            text(&mut out, &record.url);
            module_type(&mut out, &record.module_type);
            num(&mut out, record.main as usize);
            num(&mut out, record.module);
            num(&mut out, record.imports.len());
            for import in &record.imports {
                text(&mut out, &import.specifier);
                module_type(&mut out, &import.module_type);
                text(&mut out, &import.url);
            }
        }
        out
    }

    fn decode(bytes: &[u8]) -> Option<Meta> {
        let mut reader = Reader(bytes);
        let mut meta = Meta {
            ops_object: reader.num()?,
            interrupt_check: reader.num()?,
            left_marker: reader.num()?,
            async_wrap: reader.num()?,
            call_track: reader.num()?,
            ..Meta::default()
        };
        for _ in 0..reader.num()? {
            let index = reader.num()?;
            meta.made_ops.push(index);
        }
        for _ in 0..reader.num()? {
            let index = reader.num()?;
            meta.class_templates.push(index);
        }
        for _ in 0..reader.num()? {
            let index = reader.num()?;
            meta.installed.push(index);
        }
        let modules = reader.num()?;
        for _ in 0..modules {
            let url = reader.text()?;
            let module_type = reader.module_type()?;
            let main = reader.num()? != 0;
            let module = reader.num()?;
            let mut imports = Vec::new();
            for _ in 0..reader.num()? {
                imports.push(Import {
                    specifier: reader.text()?,
                    module_type: reader.module_type()?,
                    url: reader.text()?,
                });
            }
            meta.modules.push(ModuleRecord {
                url,
                module_type,
                imports,
                main,
                module,
            });
        }
        reader.0.is_empty().then_some(meta)
    }
}

struct Reader<'a>(&'a [u8]);

impl Reader<'_> {
    fn num(&mut self) -> Option<usize> {
        let (head, rest) = self.0.split_first_chunk::<4>()?;
        self.0 = rest;
        Some(u32::from_le_bytes(*head) as usize)
    }

    fn module_type(&mut self) -> Option<ModuleType> {
        match self.num()? {
            0 => Some(ModuleType::JavaScript),
            1 => Some(ModuleType::from_attribute(Some(&self.text()?))),
            _ => None,
        }
    }

    fn text(&mut self) -> Option<String> {
        let len = self.num()?;
        if len > self.0.len() {
            return None;
        }
        let (text, rest) = self.0.split_at(len);
        self.0 = rest;
        String::from_utf8(text.to_vec()).ok()
    }
}
