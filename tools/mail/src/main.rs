fn main() -> std::process::ExitCode {
    ikigai_protocol::runner::main(&ikigai_mail_tool::SPEC, ikigai_mail_tool::run)
}
