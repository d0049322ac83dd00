fn main() -> std::process::ExitCode {
    ikigai_protocol::runner::main(&ikigai_grep::SPEC, ikigai_grep::run)
}
