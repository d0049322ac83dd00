# Developer recipes. Each one is a thin wrapper over cargo, so nothing here
# is needed to build or test: see README.md.

# Build every binary (release) and fill libexec/ikigai/.
build:
    cargo xtask build

# Run all tests (the README's test command).
test:
    cargo test --workspace

# Formatting and lints, as CI runs them.
lint:
    cargo fmt --all -- --check
    cargo clippy --workspace --all-targets -- -D warnings

# Benchmarks with ratios against baselines; see docs/benchmarks.md.
bench *SUITES:
    cargo xtask bench {{SUITES}}

# Install tools to PREFIX/libexec/ikigai/ and the ikigai CLI to PREFIX/bin/.
install PREFIX="/usr/local":
    cargo xtask install --prefix {{PREFIX}}

# Build and show a tool call.
demo:
    cargo xtask demo
