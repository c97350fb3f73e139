package org.agentworkspace.core.providers;

import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.Set;
import java.util.regex.Pattern;

import org.agentworkspace.api.WorkspaceException;

/**
 * A stdio MCP server to add: the program, its arguments and its environment, validated when built. Values are
 * written into the CLIs' files as data; no shell ever interprets them.
 *
 * <p>Rules: the name is 1–64 of {@code A-Z a-z 0-9 . _ -}; the command is an absolute path or a bare program name
 * (found on PATH by the CLI), never relative ({@code ./x}), never starting with {@code -}, without control
 * characters; arguments and values contain no NUL or line break; environment names are
 * {@code [A-Za-z_][A-Za-z0-9_]*} and never one that changes how a program, its interpreter, its shell or its package
 * manager loads and is configured, or where it connects ({@link #FORBIDDEN_ENV}, the prefixes
 * {@link #FORBIDDEN_ENV_PREFIXES}, the suffixes {@link #FORBIDDEN_ENV_SUFFIXES}). Names of the kind MCP servers
 * document ({@code GITHUB_PERSONAL_ACCESS_TOKEN}, {@code BRAVE_API_KEY}, {@code DATABASE_URL}) pass.
 */
public record McpServerSpec(String name, String command, List<String> args, Map<String, String> env) {
    public static final Pattern NAME = Pattern.compile("[A-Za-z0-9._-]{1,64}");
    private static final Pattern BARE_COMMAND = Pattern.compile("[A-Za-z0-9_][A-Za-z0-9._+@-]{0,255}");
    private static final Pattern ENV_NAME = Pattern.compile("[A-Za-z_][A-Za-z0-9_]{0,127}");
    private static final int MAX_ARGS = 256;
    private static final int MAX_ENV = 128;
    private static final int MAX_VALUE = 8192;

    /**
     * Variables that let a value hijack the loader, an interpreter, a shell's start-up, a package manager or the
     * network path of what the server runs; refused (compared case-insensitively), besides the families of
     * {@link #FORBIDDEN_ENV_PREFIXES} and {@link #FORBIDDEN_ENV_SUFFIXES}.
     */
    public static final Set<String> FORBIDDEN_ENV = Set.of(
            "PATH", "HOME", "SHELL", "ENV", "BASH_ENV", "ZDOTDIR", "PROMPT_COMMAND", "PS4", "SHELLOPTS", "BASHOPTS",
            "IFS", "CDPATH", "EDITOR", "VISUAL", "PAGER", "MANPAGER", "BROWSER", "LESSOPEN", "LESSCLOSE",
            "SSH_ASKPASS", "SUDO_ASKPASS", "JAVA_TOOL_OPTIONS", "_JAVA_OPTIONS", "JDK_JAVA_OPTIONS", "CLASSPATH",
            "MAVEN_OPTS", "GRADLE_OPTS", "GCONV_PATH", "GLIBC_TUNABLES", "LOCPATH", "NLSPATH", "HOSTALIASES",
            "RES_OPTIONS", "LOCALDOMAIN", "RUSTC", "RUSTC_WRAPPER", "RUSTC_WORKSPACE_WRAPPER", "RUSTDOC", "RUSTFLAGS",
            "GOFLAGS", "GOPROXY", "GOSUMDB", "GONOSUMDB", "GONOSUMCHECK", "GOPRIVATE", "GOINSECURE", "GOTOOLCHAIN",
            "GOENV", "GOROOT", "GOPATH", "GOBIN", "SSL_CERT_FILE", "SSL_CERT_DIR", "REQUESTS_CA_BUNDLE",
            "CURL_CA_BUNDLE", "CURL_HOME", "WGETRC", "OPENSSL_CONF", "OPENSSL_ENGINES", "SSLKEYLOGFILE");
    /**
     * Prefixes refused: the dynamic loaders, exported bash functions, node, python, perl and ruby settings, git (its
     * configuration, helpers and hooks: {@code GIT_CONFIG_*}, {@code GIT_SSH_COMMAND} …), the XDG folders (where git
     * and others read their configuration), and the package managers an MCP command is often started through
     * (npx, uvx, pip, cargo, bun, deno …).
     */
    public static final List<String> FORBIDDEN_ENV_PREFIXES = List.of("LD_", "DYLD_", "BASH_FUNC_", "NODE_", "NPM_",
            "YARN_", "PNPM_", "COREPACK_", "BUN_", "DENO_", "PYTHON", "PIP_", "PIPX_", "UV_", "POETRY_", "CONDA_",
            "VIRTUAL_ENV", "PERL", "RUBY", "GEM_", "BUNDLE_", "GIT_", "XDG_", "CARGO_", "RUSTUP_");
    /** Suffixes refused: proxies ({@code HTTPS_PROXY}, {@code ALL_PROXY}, {@code NO_PROXY} …). */
    public static final List<String> FORBIDDEN_ENV_SUFFIXES = List.of("_PROXY");

    public McpServerSpec {
        if (name == null || !NAME.matcher(name).matches()) {
            throw WorkspaceException.Validation.of("name must be 1-64 characters of A-Z a-z 0-9 . _ -");
        }
        if (command == null || command.isEmpty()) {
            throw WorkspaceException.Validation.of("command is required");
        }
        checkCommand(command);
        args = args == null ? List.of() : List.copyOf(args);
        if (args.size() > MAX_ARGS) {
            throw WorkspaceException.Validation.of("at most " + MAX_ARGS + " args");
        }
        for (String a : args) {
            checkValue("args", a);
        }
        Map<String, String> e = new LinkedHashMap<>();
        if (env != null) {
            if (env.size() > MAX_ENV) {
                throw WorkspaceException.Validation.of("at most " + MAX_ENV + " env entries");
            }
            env.forEach((k, v) -> {
                checkEnvName(k);
                checkValue("env." + k, v);
                e.put(k, v);
            });
        }
        env = java.util.Collections.unmodifiableMap(e);
    }

    private static void checkCommand(String c) {
        if (c.length() > 4096 || c.chars().anyMatch(ch -> ch < 0x20 || ch == 0x7f)) {
            throw WorkspaceException.Validation.of("command must not contain control characters");
        }
        if (c.startsWith("-")) {
            throw WorkspaceException.Validation.of("command must not start with '-'");
        }
        if (c.startsWith("/")) {
            for (String seg : c.split("/")) {
                if (seg.equals("..") || seg.equals(".")) {
                    throw WorkspaceException.Validation.of("command must be a normalised absolute path");
                }
            }
            if (c.endsWith("/")) {
                throw WorkspaceException.Validation.of("command must name a program, not a folder");
            }
            return;
        }
        if (!BARE_COMMAND.matcher(c).matches()) {
            throw WorkspaceException.Validation.of("command must be an absolute path or a program name on PATH "
                    + "(no relative paths such as ./x)");
        }
    }

    private static void checkValue(String what, String v) {
        if (v == null) {
            throw WorkspaceException.Validation.of(what + " must be a string");
        }
        if (v.length() > MAX_VALUE) {
            throw WorkspaceException.Validation.of(what + " is longer than " + MAX_VALUE + " characters");
        }
        if (v.indexOf('\0') >= 0 || v.indexOf('\n') >= 0 || v.indexOf('\r') >= 0) {
            throw WorkspaceException.Validation.of(what + " must not contain NUL or line breaks");
        }
    }

    private static void checkEnvName(String k) {
        if (k == null || !ENV_NAME.matcher(k).matches()) {
            throw WorkspaceException.Validation.of("env names must match [A-Za-z_][A-Za-z0-9_]*");
        }
        String upper = k.toUpperCase(Locale.ROOT);
        if (FORBIDDEN_ENV.contains(upper) || FORBIDDEN_ENV_PREFIXES.stream().anyMatch(upper::startsWith)
                || FORBIDDEN_ENV_SUFFIXES.stream().anyMatch(upper::endsWith)) {
            throw WorkspaceException.Validation.of("env " + k + " is refused: it changes how programs are loaded, "
                    + "configured or reach the network");
        }
    }

    @Override
    public String toString() {
        return "McpServerSpec[name=" + name + ", command=" + command + ", args=" + args.size() + ", env="
                + env.keySet() + "]";
    }
}
