//! Startup snapshots: a runtime's heap after its extensions' JavaScript and a host's bootstrap
//! code ran, saved at build time ([`SnapshotBuilder`]) and deserialized by
//! [`RuntimeOptions::startup_snapshot`](crate::RuntimeOptions::startup_snapshot) instead of
//! running that code again.
//!
//! The heap refers to Rust by address: each op's functions and `CFunctionInfo`s, its
//! `OpCtx` (the functions' data), the event loop, runtime_core's own callbacks. V8 stores
//! each as an index into the external-reference list the isolate was made with
//! ([`external_references`]); a runtime made from the blob passes its own addresses in the
//! same order, so the restored functions reach its op contexts. Only the same extensions,
//! in the same order, with the same options give the same list: the blob carries a
//! fingerprint of them ([`fingerprint`]), checked before V8 sees the blob.
//!
//! What Rust holds of the heap (the ops object, the timers' `fire`, the class templates, the
//! module records) goes in as snapshot data, with the indices in a trailer after V8's blob:
//! `[V8 blob][meta][meta length: u32][fingerprint: u64][format: u32][MAGIC]`. A trailer, so
//! that the V8 blob is a prefix of a `Vec` the runtime can hand V8 without a copy.
//!
//! Isolates of a process share V8's read-only space. V8 would extend it with objects of the
//! snapshotted heap, making blobs that cannot be used beside isolates made without them (and
//! racing with isolates being made while the blob is); `crate::init_v8` turns that off
//! (`--no-extensible-ro-snapshot`), so snapshots can be made and used beside any runtime.

use std::borrow::Cow;

use v8::MapFnTo;

use crate::modules::map::{Import, ModuleRecord};
use crate::modules::ModuleType;
use crate::ops::ops_object::OpTable;
use crate::ops::OpCtx;
use crate::{JsError, Runtime, RuntimeOptions};

const MAGIC: &[u8; 8] = b"OPWSNAP\0";
const FORMAT: u32 = 3;
const TRAILER: usize = 4 + 8 + 4 + 8;

/// Builds a startup snapshot: a [`Runtime`] made as
/// [`Runtime::try_new`] makes one (its extensions' JavaScript runs), for the host to run its
/// bootstrap code in (`execute_script`, `load_side_module` and `mod_evaluate`, calls), then
/// [`SnapshotBuilder::build`] to save the heap.
///
/// ```
/// use runtime_core::{RuntimeOptions, Runtime, SnapshotBuilder};
///
/// let mut builder = SnapshotBuilder::new(RuntimeOptions::default()).unwrap();
/// builder.execute_script("boot.js", "globalThis.greet = (n) => `hello, ${n}`").unwrap();
/// let blob: Vec<u8> = builder.build().unwrap();
///
/// let mut runtime = Runtime::new(RuntimeOptions {
///     startup_snapshot: Some(blob.into()),
///     ..Default::default()
/// });
/// assert_eq!(runtime.execute_script_to_string("x.js", "greet('you')").unwrap(), "hello, you");
/// ```
///
/// A build script makes the blob once (`std::fs::write(out_dir.join("snapshot.bin"), blob)`)
/// and the host includes it (`include_bytes!(concat!(env!("OUT_DIR"), "/snapshot.bin"))`,
/// given as `Cow::Borrowed`). The blob is for the V8 build and flags it was made with, and
/// for a runtime with the same extensions in the same order and the same op options
/// (`console`, `ops_object_name`, metrics, stack traces); anything else is refused with an
/// error when the runtime is made.
///
/// At `build`, nothing may be pending (ops, timers, imports), and no instance of a
/// `#[op] impl` class may be alive: their Rust values live outside the heap.
pub struct SnapshotBuilder {
    runtime: Option<Runtime>,
}

impl SnapshotBuilder {
    /// A runtime to snapshot, made with `options` (`startup_snapshot` must be `None`).
    pub fn new(options: RuntimeOptions) -> Result<Self, JsError> {
        if options.startup_snapshot.is_some() {
            return Err(JsError::exception(
                "Error",
                "a snapshot is built from scratch: RuntimeOptions::startup_snapshot must be None",
            ));
        }
        let runtime = Runtime::make(options, Startup::ForSnapshot)?;
        Ok(Self {
            runtime: Some(runtime),
        })
    }

    /// Saves the heap and the data to restore it; consumes the runtime.
    pub fn build(mut self) -> Result<Vec<u8>, JsError> {
        let runtime = self.runtime.take().expect("built once");
        runtime.into_snapshot()
    }
}

impl std::ops::Deref for SnapshotBuilder {
    type Target = Runtime;
    fn deref(&self) -> &Runtime {
        self.runtime.as_ref().expect("not built yet")
    }
}

impl std::ops::DerefMut for SnapshotBuilder {
    fn deref_mut(&mut self) -> &mut Runtime {
        self.runtime.as_mut().expect("not built yet")
    }
}

/// How a runtime starts.
pub(crate) enum Startup {
    /// A new heap, the extensions' JavaScript run.
    Fresh,
    /// As `Fresh`, in an isolate that can be snapshotted.
    ForSnapshot,
    /// From a snapshot.
    FromSnapshot(Restore),
}

/// A snapshot, checked and split: V8's blob, and what to restore from it.
pub(crate) struct Restore {
    pub(crate) v8_blob: Cow<'static, [u8]>,
    pub(crate) meta: Meta,
}

/// Indices of the snapshot data and the module records.
#[derive(Default)]
pub(crate) struct Meta {
    pub(crate) ops_object: usize,
    pub(crate) timers_fire: usize,
    pub(crate) interrupt_check: usize,
    pub(crate) left_marker: usize,
    pub(crate) async_wrap: usize,
    /// Indices of the ops whose functions the ops object made.
    pub(crate) made_ops: Vec<usize>,
    /// Isolate data indices of the class templates, in registration order.
    pub(crate) class_templates: Vec<usize>,
    pub(crate) modules: Vec<ModuleRecord>,
}

/// Splits `blob` into V8's part and the restore data, if its fingerprint is `expected`.
pub(crate) fn open(blob: Cow<'static, [u8]>, expected: u64) -> Result<Restore, JsError> {
    let refused = |why: &str| JsError::exception("Error", &format!("startup snapshot: {why}"));
    let len = blob.len();
    if len < TRAILER + MAGIC.len() || &blob[len - MAGIC.len()..] != MAGIC {
        return Err(refused("not a snapshot made by SnapshotBuilder"));
    }
    let mut end = len - MAGIC.len();
    let mut take = |n: usize| {
        end -= n;
        blob[end..end + n].to_vec()
    };
    let format = u32::from_le_bytes(take(4).try_into().expect("4 bytes"));
    let fingerprint = u64::from_le_bytes(take(8).try_into().expect("8 bytes"));
    let meta_len = u32::from_le_bytes(take(4).try_into().expect("4 bytes")) as usize;
    if format != FORMAT {
        return Err(refused(&format!(
            "made by another runtime_core (format {format}, this one reads {FORMAT})"
        )));
    }
    if fingerprint != expected {
        return Err(refused(
            "made for other extensions or options (ops, classes, their order, console, metrics \
             or stack traces differ): build it with the same RuntimeOptions as the runtime",
        ));
    }
    if meta_len > end {
        return Err(refused("truncated"));
    }
    let meta = Meta::decode(&blob[end - meta_len..end]).ok_or_else(|| refused("corrupt"))?;
    let v8_len = end - meta_len;
    let v8_blob = match blob {
        Cow::Borrowed(bytes) => Cow::Borrowed(&bytes[..v8_len]),
        Cow::Owned(mut bytes) => {
            bytes.truncate(v8_len);
            Cow::Owned(bytes)
        }
    };
    Ok(Restore { v8_blob, meta })
}

/// V8's blob with `meta` and `fingerprint` after it.
pub(crate) fn seal(v8_blob: &[u8], meta: &Meta, fingerprint: u64) -> Vec<u8> {
    let meta = meta.encode();
    let mut blob = Vec::with_capacity(v8_blob.len() + meta.len() + TRAILER + MAGIC.len());
    blob.extend_from_slice(v8_blob);
    blob.extend_from_slice(&meta);
    blob.extend_from_slice(&(meta.len() as u32).to_le_bytes());
    blob.extend_from_slice(&fingerprint.to_le_bytes());
    blob.extend_from_slice(&FORMAT.to_le_bytes());
    blob.extend_from_slice(MAGIC);
    blob
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
            self.timers_fire,
            self.interrupt_check,
            self.left_marker,
            self.async_wrap,
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
        // A module type as its attribute, JavaScript as none.
        let module_type = |out: &mut Vec<u8>, module_type: &ModuleType| match module_type
            .attribute()
        {
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
            timers_fire: reader.num()?,
            interrupt_check: reader.num()?,
            left_marker: reader.num()?,
            async_wrap: reader.num()?,
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

/// What the snapshot's heap depends on, hashed (FNV-1a): the V8 and runtime_core versions,
/// the ops object's name, and per op its name, shape and which of its functions the runtime
/// registers; the classes.
pub(crate) fn fingerprint(
    ops_object_name: &str,
    op_ctxs: &[OpCtx],
    classes: &[&crate::ClassDecl],
) -> u64 {
    let mut hash = 0xcbf2_9ce4_8422_2325_u64;
    let mut feed = |bytes: &[u8]| {
        for &byte in bytes.iter().chain([0xff].iter()) {
            hash ^= u64::from(byte);
            hash = hash.wrapping_mul(0x0100_0000_01b3);
        }
    };
    feed(v8::VERSION_STRING.as_bytes());
    feed(env!("CARGO_PKG_VERSION").as_bytes());
    feed(ops_object_name.as_bytes());
    for op_ctx in op_ctxs {
        let decl = op_ctx.decl;
        feed(decl.name.as_bytes());
        feed(&[
            decl.arity() as u8,
            decl.fast_fn.is_some() as u8,
            decl.flags.async_op.is_some() as u8,
            op_ctx.metrics.is_some() as u8,
            op_ctx.stack_trace.is_some() as u8,
        ]);
    }
    for class in classes {
        feed(class.name.as_bytes());
        feed(&[class.members.len() as u8, class.constructor.is_some() as u8]);
    }
    hash
}

/// Every address the heap may hold, in a fixed order: runtime_core's callbacks, the event
/// loop, then per op its context and functions (both variants: which one a template holds
/// depends on the options, which the fingerprint pins).
pub(crate) fn external_references(
    ops: &OpTable,
    event_loop: *const crate::event_loop::EventLoop,
) -> Vec<v8::ExternalReference> {
    let function = |function: v8::FunctionCallback| v8::ExternalReference { function };
    let pointer = |pointer: *const std::ffi::c_void| v8::ExternalReference {
        pointer: pointer.cast_mut(),
    };
    let mut refs = vec![
        function(crate::event_loop::async_wrap::claim_callback.map_fn_to()),
        pointer(crate::event_loop::async_wrap::CLAIM_FAST.0.as_ptr().cast()),
        function(crate::class::templates::constructor_trampoline),
        function(crate::ops::metrics::metered_slow_fn),
        function(crate::errors::throw::illegal_constructor.map_fn_to()),
        function(crate::modules::callbacks::import_meta_resolve.map_fn_to()),
        function(crate::modules::callbacks::to_namespace.map_fn_to()),
        pointer(event_loop.cast()),
        pointer((ops as *const OpTable).cast()),
    ];
    refs.extend(crate::ops::ops_object::interceptor_references());
    for steps in crate::modules::callbacks::evaluation_steps_addresses() {
        refs.push(pointer(steps));
    }
    for op_ctx in ops.ctxs.iter() {
        let decl = op_ctx.decl;
        refs.push(pointer((op_ctx as *const OpCtx).cast()));
        refs.push(function(decl.slow_fn));
        // V8 keeps the address of the `CFunction` itself (in the `'static` decl).
        if let Some(fast_fn) = &decl.fast_fn {
            refs.push(pointer(
                (&fast_fn.plain as *const v8::fast_api::CFunction).cast(),
            ));
            refs.push(pointer(
                (&fast_fn.metered as *const v8::fast_api::CFunction).cast(),
            ));
        }
    }
    refs
}
