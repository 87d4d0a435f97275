//! The `eleusis` binary: every capability is a subcommand (see `eleusis --help`).

fn main() -> std::process::ExitCode {
    eleusis::cli::main()
}
