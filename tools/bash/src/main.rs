fn main() -> std::process::ExitCode {
    if std::env::args_os().nth(1).as_deref() == Some(ikigai_bash::DRAIN_FLAG.as_ref()) {
        ikigai_bash::drain_stdin();
        return std::process::ExitCode::SUCCESS;
    }
    ikigai_protocol::runner::main(&ikigai_bash::SPEC, ikigai_bash::run)
}
