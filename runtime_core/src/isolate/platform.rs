//! Process-wide V8 initialisation: the platform is created once, and flags set before that
//! are applied first.

use std::fmt;
use std::sync::Mutex;

struct PlatformInit {
    pending_flags: Vec<String>,
    initialized: bool,
}

/// The flags V8 started with, as given (what a startup snapshot depends on).
pub(crate) fn flags() -> String {
    let init = PLATFORM.lock().unwrap_or_else(|poison| poison.into_inner());
    init.pending_flags.join(" ")
}

static PLATFORM: Mutex<PlatformInit> = Mutex::new(PlatformInit {
    pending_flags: Vec::new(),
    initialized: false,
});

/// `set_v8_flags` was called after V8 had started; the flags were not applied.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct V8AlreadyInitialized {
    /// The flags that were not applied.
    pub flags: Vec<String>,
}

impl fmt::Display for V8AlreadyInitialized {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "V8 is already initialised; flags {:?} must be set before the first Runtime",
            self.flags
        )
    }
}

impl std::error::Error for V8AlreadyInitialized {}

/// Queues V8 command-line flags (e.g. `--allow-natives-syntax`, `--expose-gc`) to be applied
/// when V8 starts. Calling it again adds more; flags already queued stay. Thread-safe.
///
/// Returns an error once V8 has started (the first [`crate::Runtime`] or [`init_v8`]), since
/// V8 reads most flags only at start-up.
pub fn set_v8_flags(flags: &[&str]) -> Result<(), V8AlreadyInitialized> {
    let mut init = PLATFORM.lock().unwrap_or_else(|poison| poison.into_inner());
    if init.initialized {
        return Err(V8AlreadyInitialized {
            flags: flags.iter().map(|flag| flag.to_string()).collect(),
        });
    }
    init.pending_flags
        .extend(flags.iter().map(|flag| flag.to_string()));
    Ok(())
}

/// Starts V8 (platform and engine) with the queued flags, once per process. Every
/// [`crate::Runtime`] calls it; calling it again does nothing. Thread-safe.
pub fn init_v8() {
    let mut init = PLATFORM.lock().unwrap_or_else(|poison| poison.into_inner());
    if init.initialized {
        return;
    }
    // A startup snapshot must leave the read-only space as it is: isolates share it, so a
    // blob that extends it (V8's default) cannot be used beside isolates made without it, and
    // making one moves objects into it under other isolates' feet (see `crate::runtime::snapshot`).
    // The user's flags come after, and may say otherwise.
    v8::V8::set_flags_from_string("--no-extensible-ro-snapshot");
    if !init.pending_flags.is_empty() {
        v8::V8::set_flags_from_string(&init.pending_flags.join(" "));
    }
    // V8's default platform, with its foreground tasks handed to the runtimes' queues (see
    // `crate::isolate::tasks`).
    v8::V8::initialize_platform(
        v8::new_custom_platform(0, false, false, super::tasks::Platform).make_shared(),
    );
    v8::V8::initialize();
    init.initialized = true;
}
