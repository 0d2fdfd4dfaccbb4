//! [`FsModuleLoader`]: the modules under one directory of the file system, and nothing else.
//! Files are read off the JavaScript thread (see `blocking.rs`), so a slow disk blocks no
//! runtime, and a runtime terminated while it waits on a read stops at once.

use std::io::Read;
use std::path::{Path, PathBuf};

use super::blocking;
use super::loader::{
    LoadRequest, ModuleCode, ModuleLoadError, ModuleLoadFuture, ModuleLoader, ModuleSource,
    ModuleType,
};

/// The largest module an [`FsModuleLoader`] reads unless told otherwise: 16 MiB.
pub const DEFAULT_MAX_MODULE_SIZE: u64 = 16 << 20;

/// Loads `file:` URLs under one directory, its root: `.json` files as JSON modules, anything
/// else as JavaScript (and any file as `text` or `bytes` when an import asks for that).
///
/// What a script can reach through it, and nothing more: the regular files whose real path
/// (symbolic links followed, `..` and percent-encoded separators resolved) is under the root,
/// up to [`FsModuleLoader::max_module_size`] bytes each, read without trusting the size the
/// file system reports. Any other scheme, a `file:` URL with a host, a query or a fragment, a
/// path outside the root, a directory, a device, a FIFO or a socket is refused with an error
/// naming the URL (never the file's contents), before anything is read; a path outside the
/// root as written is refused before any system call, so that the error tells nothing of what
/// exists there.
///
/// Its URLs are the root's `file:` URLs unless [`FsModuleLoader::url_space`] gives it a space
/// of the host's choosing (`file:///`, `tenant-a:/`): then what a tenant's modules, their
/// `import.meta.url`, stacks and errors show is a URL of that space, and no host path reaches
/// the tenant. A JavaScript module's `//# sourceMappingURL=` naming a file (`main.js.map`) is
/// read through the same confinement, and its map kept: stacks point at the original source.
///
/// A process that can write to the root while a runtime loads from it (replacing a checked
/// directory with a link between the check and the open) is outside what it guards against:
/// give tenants no way to write there.
#[derive(Clone, Debug)]
pub struct FsModuleLoader {
    root: PathBuf,
    root_url: String,
    /// The host's URL space for the root, if it chose one (else the root's `file:` URLs).
    space: Option<url::Url>,
    max_size: u64,
    /// Whether `.ts`, `.mts` and `.tsx` files are transpiled (the `typescript` feature).
    #[cfg(feature = "typescript")]
    typescript: bool,
}

impl FsModuleLoader {
    /// A loader confined to `root` (which must exist: it is canonicalized now).
    pub fn new(root: impl AsRef<Path>) -> std::io::Result<Self> {
        let root = std::fs::canonicalize(root)?;
        let root_url = url::Url::from_directory_path(&root)
            .map_err(|()| {
                std::io::Error::new(
                    std::io::ErrorKind::InvalidInput,
                    "the root has no file: URL",
                )
            })?
            .into();
        Ok(Self {
            root,
            root_url,
            space: None,
            max_size: DEFAULT_MAX_MODULE_SIZE,
            #[cfg(feature = "typescript")]
            typescript: false,
        })
    }

    /// Serves the root as the URL space `base` (ending in `/`, hierarchical, without a query or
    /// a fragment) instead of its `file:` URL: with `file:///`, the root's `lib/x.js` is
    /// `file:///lib/x.js`; with `tenant-a:/`, `tenant-a:/lib/x.js`. A URL outside the space is
    /// refused as a path outside the root is.
    pub fn url_space(mut self, base: &str) -> std::io::Result<Self> {
        let invalid = |why: &str| {
            std::io::Error::new(
                std::io::ErrorKind::InvalidInput,
                format!("the URL space {base:?} {why}"),
            )
        };
        let parsed = url::Url::parse(base).map_err(|_| invalid("is not a URL"))?;
        if parsed.cannot_be_a_base() || !parsed.path().ends_with('/') {
            return Err(invalid("must be a hierarchical URL ending in `/`"));
        }
        if parsed.query().is_some() || parsed.fragment().is_some() {
            return Err(invalid("has a query or a fragment"));
        }
        self.root_url = parsed.to_string();
        self.space = Some(parsed);
        Ok(self)
    }

    /// Transpiles `.ts`, `.mts` and `.tsx` modules to JavaScript (oxc: types erased, enums,
    /// namespaces and parameter properties lowered), keeping their source maps: a stack points
    /// at the TypeScript line. Off by default: a tenant's TypeScript is loaded only when the
    /// host asks. (The `typescript` feature.)
    #[cfg(feature = "typescript")]
    pub fn typescript(mut self, transpile: bool) -> Self {
        self.typescript = transpile;
        self
    }

    /// Refuses modules larger than `bytes` (default [`DEFAULT_MAX_MODULE_SIZE`]).
    pub fn max_module_size(mut self, bytes: u64) -> Self {
        self.max_size = bytes;
        self
    }

    /// The root, canonical.
    pub fn root(&self) -> &Path {
        &self.root
    }

    /// The root as a URL ending in `/` (its `file:` URL, or the space
    /// [`FsModuleLoader::url_space`] gave it): what a host joins a main module's path to.
    pub fn root_url(&self) -> &str {
        &self.root_url
    }
}

impl ModuleLoader for FsModuleLoader {
    fn load(&self, request: &LoadRequest) -> ModuleLoadFuture {
        let url = request.url.clone();
        let confined = Confined {
            root: self.root.clone(),
            space: self.space.clone(),
            max_size: self.max_size,
            #[cfg(feature = "typescript")]
            typescript: self.typescript,
        };
        let read = blocking::run(move || read_module(&url, &confined));
        Box::pin(async move {
            read.await.unwrap_or_else(|| {
                Err(ModuleLoadError(
                    "the module loader's read failed unexpectedly".to_owned(),
                ))
            })
        })
    }
}

/// What a read may reach: the root, the URL space that names it, a size.
struct Confined {
    root: PathBuf,
    space: Option<url::Url>,
    max_size: u64,
    #[cfg(feature = "typescript")]
    typescript: bool,
}

/// Reads the module at `url` if it is a regular file under the root, with the map its
/// `//# sourceMappingURL=` names, if that is a file under the root too.
fn read_module(url: &str, confined: &Confined) -> Result<ModuleSource, ModuleLoadError> {
    let refused = |why: String| ModuleLoadError(format!("{url}: {why}"));
    let parsed = url::Url::parse(url).map_err(|_| refused("not a URL".to_owned()))?;
    let path = confined.path_of(&parsed).map_err(refused)?;
    let bytes = confined.read(&path).map_err(refused)?;
    let json = path.extension().is_some_and(|ext| ext == "json");
    let code = match String::from_utf8(bytes) {
        Ok(text) => ModuleCode::Text(text.into()),
        Err(error) => ModuleCode::Bytes(error.into_bytes().into()),
    };
    if json {
        return Ok(ModuleSource::new(ModuleType::Json, code));
    }
    #[cfg(feature = "typescript")]
    if confined.typescript && super::transpile::is_typescript(&path) {
        let ModuleCode::Text(text) = &code else {
            return Err(refused("TypeScript that is not UTF-8".to_owned()));
        };
        let jsx = path.extension().is_some_and(|ext| ext == "tsx");
        let (javascript, map) = super::transpile::transpile(url, text, jsx).map_err(refused)?;
        return Ok(ModuleSource::js(javascript).with_source_map(map));
    }
    let map = match &code {
        ModuleCode::Text(text) => map_file(text)
            .and_then(|name| parsed.join(name).ok())
            .and_then(|map_url| confined.path_of(&map_url).ok())
            .and_then(|map_path| confined.read(&map_path).ok()),
        ModuleCode::Bytes(_) => None,
    };
    let source = ModuleSource::new(ModuleType::JavaScript, code);
    Ok(match map {
        Some(map) => source.with_source_map(map),
        None => source,
    })
}

/// The file a source's last `//# sourceMappingURL=` comment names, if it names one (not a
/// `data:` URL, which the runtime reads from the source itself).
fn map_file(source: &str) -> Option<&str> {
    crate::isolate::source_maps::source_mapping_url(source).filter(|url| !url.starts_with("data:"))
}

impl Confined {
    /// The path under the root that `url` names, or why it names none. Nothing is looked up:
    /// a URL outside the root as written is refused before any system call.
    fn path_of(&self, url: &url::Url) -> Result<PathBuf, String> {
        let refused = |why: &str| Err(why.to_owned());
        // One URL per file: a query or fragment would make any number of modules of one file.
        if url.query().is_some() || url.fragment().is_some() {
            return Err(format!("a {}: URL with a query or fragment", url.scheme()));
        }
        // Each segment as the path will have it: none may smuggle a separator or a parent.
        let mut segments = Vec::new();
        for segment in url.path_segments().into_iter().flatten() {
            let decoded = percent_decode(segment);
            if decoded.iter().any(|&b| b == b'/' || b == b'\\' || b == 0)
                || decoded == b".."
                || decoded == b"."
            {
                return refused("outside the loader's root");
            }
            segments.push(decoded);
        }
        let path = match &self.space {
            None => {
                if url.scheme() != "file" {
                    return refused("not a file: URL");
                }
                if url.host_str().is_some_and(|host| !host.is_empty()) {
                    return refused("a file: URL with a host");
                }
                url.to_file_path()
                    .map_err(|()| "not a file path".to_owned())?
            }
            Some(space) => {
                let same_origin = url.scheme() == space.scheme()
                    && url.host_str() == space.host_str()
                    && url.port() == space.port();
                if !same_origin || !url.path().starts_with(space.path()) {
                    return refused("outside the loader's URL space");
                }
                let skip = space.path().split('/').filter(|s| !s.is_empty()).count();
                let mut path = self.root.clone();
                for segment in segments.iter().skip(skip) {
                    path.push(os_segment(segment));
                }
                path
            }
        };
        // Outside the root as written (no `..` is left in it).
        if !path.starts_with(&self.root) {
            return refused("outside the loader's root");
        }
        Ok(path)
    }

    /// The bytes of `path` if its real path is a regular file under the root, at most the
    /// size limit.
    fn read(&self, path: &Path) -> Result<Vec<u8>, String> {
        let real = std::fs::canonicalize(path).map_err(|error| io_reason(&error))?;
        if !real.starts_with(&self.root) {
            return Err("outside the loader's root".to_owned());
        }
        let file = open_regular(&real).map_err(|error| io_reason(&error))?;
        let reported = file.metadata().map(|meta| meta.len()).unwrap_or(0);
        let mut bytes = Vec::with_capacity(reported.min(self.max_size) as usize);
        file.take(self.max_size.saturating_add(1))
            .read_to_end(&mut bytes)
            .map_err(|error| io_reason(&error))?;
        if bytes.len() as u64 > self.max_size {
            return Err(format!(
                "larger than the loader's limit of {} bytes",
                self.max_size
            ));
        }
        Ok(bytes)
    }
}

/// A decoded URL segment as a file name.
fn os_segment(segment: &[u8]) -> std::ffi::OsString {
    #[cfg(unix)]
    {
        use std::os::unix::ffi::OsStrExt;
        std::ffi::OsStr::from_bytes(segment).to_owned()
    }
    #[cfg(not(unix))]
    {
        String::from_utf8_lossy(segment).into_owned().into()
    }
}

/// Opens `path` (canonical) if it is a regular file: without following a link, and without
/// blocking on a FIFO (checked on the open file, so nothing can swap it in between).
fn open_regular(path: &Path) -> std::io::Result<std::fs::File> {
    let mut options = std::fs::OpenOptions::new();
    options.read(true);
    #[cfg(unix)]
    {
        use std::os::unix::fs::OpenOptionsExt;
        options.custom_flags(libc::O_NONBLOCK | libc::O_NOFOLLOW | libc::O_CLOEXEC);
    }
    let file = options.open(path)?;
    if !file.metadata()?.is_file() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "not a regular file",
        ));
    }
    Ok(file)
}

/// What an I/O error says, without the path (the URL names it).
fn io_reason(error: &std::io::Error) -> String {
    match error.kind() {
        std::io::ErrorKind::NotFound => "no such file".to_owned(),
        std::io::ErrorKind::PermissionDenied => "permission denied".to_owned(),
        _ => error.to_string(),
    }
}

/// `%XX` escapes decoded (a malformed one kept as it is).
fn percent_decode(segment: &str) -> Vec<u8> {
    let bytes = segment.as_bytes();
    let mut out = Vec::with_capacity(bytes.len());
    let mut index = 0;
    while index < bytes.len() {
        let hex = bytes
            .get(index + 1..index + 3)
            .filter(|pair| pair.iter().all(u8::is_ascii_hexdigit))
            .and_then(|pair| std::str::from_utf8(pair).ok())
            .and_then(|pair| u8::from_str_radix(pair, 16).ok());
        match (bytes[index], hex) {
            (b'%', Some(byte)) => {
                out.push(byte);
                index += 3;
            }
            (byte, _) => {
                out.push(byte);
                index += 1;
            }
        }
    }
    out
}
