fn main() -> std::process::ExitCode {
    ikigai_protocol::runner::main(&ikigai_glob::SPEC, ikigai_glob::run)
}
