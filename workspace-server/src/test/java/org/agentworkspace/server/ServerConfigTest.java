package org.agentworkspace.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;

import org.junit.jupiter.api.Test;

/** The settings of the files and git families: defaults, environment, flags, validation. */
class ServerConfigTest {
    private static final String HOME = System.getProperty("user.home");

    @Test
    void defaultsAreTheHomeFolderGithubAndTenMebibytes() {
        ServerConfig c = ServerConfig.from(Map.of(), List.of());
        assertEquals(List.of(Path.of(HOME)), c.browseRoots());
        assertEquals(Set.of("https://github.com"), c.gitCredentialOrigins());
        assertEquals(10L << 20, c.fileLimits().maxReadBytes());
        assertEquals(10L << 20, c.fileLimits().maxWriteBytes());
        assertEquals(2 * (10L << 20) + 64 * 1024, c.maxFileBodyBytes());
        assertEquals(1024 * 1024, c.maxPayloadBytes());
    }

    /** Issue 17: with HOME changed, the data folder and {@code ~} followed user.home while the CLIs used HOME. */
    @Test
    void oneHomeTheEnvironmentsHome() {
        Map<String, String> env = Map.of("HOME", "/srv/aw-home", "AW_HISTORY_HOME", "~/h");
        ServerConfig c = ServerConfig.from(env, List.of("--cli-path", "~/bin/claude"));
        assertEquals(Path.of("/srv/aw-home/.agent-workspace"), c.engine().dataDir());
        assertEquals(List.of(Path.of("/srv/aw-home")), c.browseRoots());
        assertEquals(List.of(Path.of("/srv/aw-home/h")), c.engine().historyHomes());
        assertEquals(Path.of("/srv/aw-home/data"), ServerConfig.from(env, List.of("--data-dir", "~/data"))
                .engine().dataDir());
        assertEquals(Path.of("/srv/aw-home"), ServerConfig.home(env));
        assertEquals(Path.of(HOME), ServerConfig.home(Map.of()));
        // the engine's CLIs and histories use the same rule
        assertEquals(ServerConfig.home(env), org.agentworkspace.core.providers.ProviderPaths.of(
                c.engine().dataDir(), env).home());
    }

    @Test
    void environmentThenFlags() {
        ServerConfig env = ServerConfig.from(Map.of("AW_BROWSE_ROOTS", "~/code, /srv/projects",
                "AW_GIT_CREDENTIAL_ORIGINS", "https://GitLab.example.org:443,https://github.com",
                "AW_MAX_FILE_BYTES", "2048"), List.of());
        assertEquals(List.of(Path.of(HOME, "code"), Path.of("/srv/projects")), env.browseRoots());
        assertEquals(Set.of("https://gitlab.example.org", "https://github.com"), env.gitCredentialOrigins());
        assertEquals(2048, env.fileLimits().maxWriteBytes());
        assertEquals(1024 * 1024, env.maxFileBodyBytes(), "never below the default body limit");

        ServerConfig flags = ServerConfig.from(Map.of("AW_BROWSE_ROOTS", "/srv"), List.of("--browse-roots",
                "/data/a,/data/b", "--git-credential-origins=https://git.example.com:8443", "--max-file-bytes",
                "4194304"));
        assertEquals(List.of(Path.of("/data/a"), Path.of("/data/b")), flags.browseRoots());
        assertEquals(Set.of("https://git.example.com:8443"), flags.gitCredentialOrigins());
        assertEquals(2L * 4194304 + 64 * 1024, flags.maxFileBodyBytes());
        assertEquals(Set.of("https://git.example.com:8443"), flags.vcsOptions().credentialOrigins());
    }

    @Test
    void badValuesStopTheStart() {
        for (List<String> args : List.of(List.of("--browse-roots", "relative/dir"), List.of("--browse-roots", ","),
                List.of("--git-credential-origins", "https://github.com/some/path"),
                List.of("--git-credential-origins", "not an origin"), List.of("--max-file-bytes", "10"),
                List.of("--max-file-bytes", "lots"), List.of("--web-push-subject", "ops@example.com"))) {
            assertThrows(IllegalArgumentException.class, () -> ServerConfig.from(Map.of(), args), args.toString());
        }
    }

    @Test
    void updateSettingsFromTheEnvironmentAndFlags() throws Exception {
        ServerConfig d = ServerConfig.from(Map.of("AW_DATA_DIR", "/srv/aw"), List.of());
        assertEquals(Path.of("/srv/aw/runtime"), d.update().runtimeDir());
        assertEquals(null, d.update().manifestUrl());
        assertEquals(null, d.update().publicKey());
        java.security.PublicKey key = java.security.KeyPairGenerator.getInstance("Ed25519").generateKeyPair()
                .getPublic();
        ServerConfig c = ServerConfig.from(Map.of("AW_UPDATE_URL", "https://example.org/aw/manifest.json",
                "AW_UPDATE_PUBLIC_KEY", java.util.Base64.getEncoder().encodeToString(key.getEncoded())),
                List.of("--runtime-dir", "/opt/aw/runtime", "--source-dir", "/src/aw", "--update-max-bytes", "4096"));
        assertEquals(java.net.URI.create("https://example.org/aw/manifest.json"), c.update().manifestUrl());
        assertEquals(Path.of("/opt/aw/runtime"), c.update().runtimeDir());
        assertEquals(Path.of("/src/aw"), c.update().sourceDir());
        assertEquals(4096, c.update().maxPackageBytes());
        org.junit.jupiter.api.Assertions.assertArrayEquals(key.getEncoded(), c.update().publicKey().getEncoded());
        for (List<String> args : List.of(List.of("--update-url", "file:///etc/manifest.json"),
                List.of("--update-url", "https://user:pw@example.org/m.json"), List.of("--update-url", "not a url"),
                List.of("--runtime-dir", "relative"), List.of("--source-dir", "relative"),
                List.of("--update-max-bytes", "10"), List.of("--update-public-key", "not base64!"),
                List.of("--update-public-key", java.util.Base64.getEncoder().encodeToString(new byte[16])))) {
            assertThrows(IllegalArgumentException.class, () -> ServerConfig.from(Map.of(), args), args.toString());
        }
    }

    @Test
    void webPushFlags() {
        ServerConfig d = ServerConfig.from(Map.of(), List.of());
        assertEquals(false, d.engine().webPush().allowLoopbackHttp());
        assertEquals("mailto:operator@agent-workspace.invalid", d.engine().webPush().subject());
        ServerConfig env = ServerConfig.from(Map.of("AW_WEB_PUSH_SUBJECT", "https://ops.example.com/contact",
                "AW_WEB_PUSH_ALLOW_LOOPBACK_HTTP", "true"), List.of());
        assertEquals("https://ops.example.com/contact", env.engine().webPush().subject());
        assertEquals(true, env.engine().webPush().allowLoopbackHttp());
        ServerConfig flags = ServerConfig.from(Map.of(), List.of("--web-push-subject", "mailto:ops@example.com",
                "--web-push-allow-loopback-http"));
        assertEquals("mailto:ops@example.com", flags.engine().webPush().subject());
        assertEquals(true, flags.engine().webPush().allowLoopbackHttp());
    }

    @Test
    void theHelpListsEveryOptionWithItsEnvironmentVariable() {
        String help = Main.usageText();
        ServerConfig.ENV_NAMES.forEach((env, flag) -> {
            assertTrue(help.matches("(?s).*\\n +--" + java.util.regex.Pattern.quote(flag) + "[ \\[A-Z].*"),
                    "--" + flag + " is not in the help");
            assertTrue(help.contains(" " + env + " "), env + " is not in the help");
        });
    }

    /** docs/scale-out.md "Where work runs": the advertised address and the runner-only switch. */
    @Test
    void advertiseUrlAndRunnerOnly() {
        ServerConfig d = ServerConfig.from(Map.of(), List.of());
        assertEquals(NodeRole.defaults(), d.node());
        assertEquals("http://127.0.0.1:3001", d.node().advertised("127.0.0.1", 3001, "box"));
        assertEquals("http://box:8080", d.node().advertised("0.0.0.0", 8080, "box"));
        assertEquals("http://[::1]:8080", d.node().advertised("::1", 8080, "box"));
        ServerConfig c = ServerConfig.from(Map.of("AW_RUNNER_ONLY", "true"),
                List.of("--advertise-url", "https://node-b.internal:3001/"));
        assertTrue(c.node().runnerOnly());
        assertEquals("https://node-b.internal:3001", c.node().advertised("0.0.0.0", 1, "box"));
        assertTrue(ServerConfig.from(Map.of(), List.of("--runner-only")).node().runnerOnly());
        for (String bad : List.of("node-b:3001", "ftp://node-b", "http://node-b/aw", "http://u:p@node-b",
                "http://node-b?x=1")) {
            assertThrows(IllegalArgumentException.class,
                    () -> ServerConfig.from(Map.of(), List.of("--advertise-url", bad)), bad);
        }
    }
}
