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
/// A process that can write to the root while a runtime loads from it (replacing a checked
/// directory with a link between the check and the open) is outside what it guards against:
/// give tenants no way to write there.
#[derive(Clone, Debug)]
pub struct FsModuleLoader {
    root: PathBuf,
    root_url: String,
    max_size: u64,
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
            max_size: DEFAULT_MAX_MODULE_SIZE,
        })
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

    /// The root as a `file:` URL ending in `/`: what a host joins a main module's path to.
    pub fn root_url(&self) -> &str {
        &self.root_url
    }
}

impl ModuleLoader for FsModuleLoader {
    fn load(&self, request: &LoadRequest) -> ModuleLoadFuture {
        let url = request.url.clone();
        let root = self.root.clone();
        let max_size = self.max_size;
        let read = blocking::run(move || read_module(&url, &root, max_size));
        Box::pin(async move {
            read.await.unwrap_or_else(|| {
                Err(ModuleLoadError(
                    "the module loader's read failed unexpectedly".to_owned(),
                ))
            })
        })
    }
}

/// Reads the module at `url` if it is a regular file under `root`.
fn read_module(url: &str, root: &Path, max_size: u64) -> Result<ModuleSource, ModuleLoadError> {
    let refused = |why: &str| ModuleLoadError(format!("{url}: {why}"));
    let parsed = url::Url::parse(url).map_err(|_| refused("not a URL"))?;
    if parsed.scheme() != "file" {
        return Err(refused("not a file: URL"));
    }
    if parsed.host_str().is_some_and(|host| !host.is_empty()) {
        return Err(refused("a file: URL with a host"));
    }
    // One URL per file: a query or fragment would make any number of modules of one file.
    if parsed.query().is_some() || parsed.fragment().is_some() {
        return Err(refused("a file: URL with a query or fragment"));
    }
    // Each segment as the path will have it: none may smuggle a separator or a parent.
    for segment in parsed.path_segments().into_iter().flatten() {
        let decoded = percent_decode(segment);
        if decoded.iter().any(|&b| b == b'/' || b == b'\\' || b == 0) || decoded == b".." {
            return Err(refused("outside the loader's root"));
        }
    }
    let path = parsed
        .to_file_path()
        .map_err(|()| refused("not a file path"))?;
    // Outside the root as written (no `..` is left in it): refused before any system call,
    // so the error says nothing of what exists there.
    if !path.starts_with(root) {
        return Err(refused("outside the loader's root"));
    }
    let real = std::fs::canonicalize(&path).map_err(|error| refused(&io_reason(&error)))?;
    if !real.starts_with(root) {
        return Err(refused("outside the loader's root"));
    }
    let file = open_regular(&real).map_err(|error| refused(&io_reason(&error)))?;
    let reported = file.metadata().map(|meta| meta.len()).unwrap_or(0);
    let mut bytes = Vec::with_capacity(reported.min(max_size) as usize);
    file.take(max_size.saturating_add(1))
        .read_to_end(&mut bytes)
        .map_err(|error| refused(&io_reason(&error)))?;
    if bytes.len() as u64 > max_size {
        return Err(refused(&format!(
            "larger than the loader's limit of {max_size} bytes"
        )));
    }
    let json = path.extension().is_some_and(|ext| ext == "json");
    let code = match String::from_utf8(bytes) {
        Ok(text) => ModuleCode::Text(text.into()),
        Err(error) => ModuleCode::Bytes(error.into_bytes().into()),
    };
    let module_type = if json {
        ModuleType::Json
    } else {
        ModuleType::JavaScript
    };
    Ok(ModuleSource::new(module_type, code))
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
