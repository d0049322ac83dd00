fn main() -> std::process::ExitCode {
    ikigai_protocol::runner::main(&ikigai_file_write::SPEC, ikigai_file_write::run)
}
