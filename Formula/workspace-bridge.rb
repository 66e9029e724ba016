# Homebrew formula for macOS: builds WorkspaceBridge from source with Xcode's Swift 6 and links
# Homebrew's jansson, pcre2 and libpq (the session hub's PostgreSQL client).
#
# NOT BUILT OR TESTED HERE: this repository is built and tested on Linux only, where Homebrew
# on macOS cannot run, and nothing here checks this file; docs/decisions.md, "Ship it
# (issue 26)", says what a macOS CI would need to prove it.
#
#   brew install --HEAD ./Formula/workspace-bridge.rb
class WorkspaceBridge < Formula
  desc "Workspace of files and agent sessions over stdio JSON-RPC 2.0, LSP-style and MCP"
  homepage "https://github.com/workspace-bridge/workspace-bridge"
  license "Apache-2.0"
  head "https://github.com/workspace-bridge/workspace-bridge.git", branch: "main"

  depends_on xcode: ["16.0", :build] # Swift 6 (swift-tools-version 6.0)
  depends_on "pkg-config" => :build
  depends_on "jansson"
  depends_on "libpq"
  depends_on "pcre2"
  depends_on macos: :sequoia # Package.swift: platforms .macOS(.v15)

  def install
    # libpq is keg-only: its pkg-config file is not on the default path.
    ENV.prepend_path "PKG_CONFIG_PATH", Formula["libpq"].opt_lib/"pkgconfig"
    system "swift", "build", "--disable-sandbox", "-c", "release", "--product", "workspace-bridge"
    bin.install ".build/release/workspace-bridge"
    generate_completions_from_executable(bin/"workspace-bridge", "--generate-completion-script")
    # The web front end finds the JS client as its sibling (clients/web/routes.mjs reads ../js).
    (pkgshare/"clients").install "clients/web", "clients/js", "clients/python"
    pkgshare.install "schema/openrpc.json"
  end

  def caveats
    <<~EOS
      Check the setup:      workspace-bridge doctor
      Web front end:        node #{opt_pkgshare}/clients/web/run.mjs --bin #{opt_bin}/workspace-bridge
    EOS
  end

  test do
    assert_match(/\A\d+\.\d+\.\d+\n\z/, shell_output("#{bin}/workspace-bridge --version"))
    output = shell_output("#{bin}/workspace-bridge doctor --local-root #{testpath}/ws --config-dir #{testpath}/cfg")
    assert_match "No problem found.", output
  end
end
