fn main() -> std::process::ExitCode {
    ikigai_protocol::runner::main(&ikigai_file_read::SPEC, ikigai_file_read::run)
}
