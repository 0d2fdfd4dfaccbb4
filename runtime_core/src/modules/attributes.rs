//! Import attributes (`with { type: "json" }`) read into the module type they ask for.

use super::loader::ModuleType;
use super::map::ModuleMap;

/// The module type an import's attributes ask for (`stride`: 3 for a module request's
/// key-value-position triples, 2 for `import()`'s pairs): `type` is the one attribute, and
/// its value must name a type this runtime serves. `Err` with the error's class and message.
pub(crate) fn requested_type(
    map: &ModuleMap,
    scope: &mut v8::PinScope<'_, '_>,
    attributes: v8::Local<'_, v8::FixedArray>,
    stride: usize,
) -> Result<ModuleType, (&'static str, String)> {
    // No attributes: JavaScript (nearly every import), without a look at the loader.
    if attributes.length() == 0 {
        return Ok(ModuleType::JavaScript);
    }
    let mut requested = None;
    let text = |scope: &mut v8::PinScope<'_, '_>, index: usize| {
        attributes
            .get(scope, index)
            .and_then(|item| v8::Local::<v8::String>::try_from(item).ok())
            .map(|item| item.to_rust_string_lossy(scope))
    };
    for index in (0..attributes.length()).step_by(stride) {
        let key = text(scope, index).unwrap_or_default();
        if key != "type" {
            return Err((
                "SyntaxError",
                format!("the import attribute \"{key}\" is not supported (only \"type\" is)"),
            ));
        }
        requested = text(scope, index + 1);
    }
    let module_type = ModuleType::from_attribute(requested.as_deref());
    if !map.knows_type(&module_type) {
        return Err((
            "TypeError",
            format!(
                "the module type {module_type} is not supported (JavaScript, \"json\", \
                 \"text\" and \"bytes\" are)"
            ),
        ));
    }
    Ok(module_type)
}
