fn main() -> std::process::ExitCode {
    ikigai_protocol::runner::main(&ikigai_file_edit::SPEC, ikigai_file_edit::run)
}
