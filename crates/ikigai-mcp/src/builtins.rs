use ikigai_host::{Builtin, Host};

/// Lets `host` run these tools in-process through their libraries (when the
/// registry's tool of that name is the system one, see
/// [`Host::add_builtin`]): they are bounded and cannot hang, and skipping a
/// process spawn per call is what makes a small call as fast as a server
/// that answers from memory. `bash`, `glob` and `grep` are always spawned,
/// so a runaway call can be killed.
pub fn add_builtins(host: &Host) {
    let builtins = [
        (
            "file_read",
            Builtin {
                spec: &ikigai_file_read::SPEC,
                run: ikigai_file_read::run,
            },
        ),
        (
            "file_write",
            Builtin {
                spec: &ikigai_file_write::SPEC,
                run: ikigai_file_write::run,
            },
        ),
        (
            "file_edit",
            Builtin {
                spec: &ikigai_file_edit::SPEC,
                run: ikigai_file_edit::run,
            },
        ),
        (
            "mail",
            Builtin {
                spec: &ikigai_mail_tool::SPEC,
                run: ikigai_mail_tool::run,
            },
        ),
    ];
    for (name, builtin) in builtins {
        host.add_builtin(name, builtin);
    }
}
