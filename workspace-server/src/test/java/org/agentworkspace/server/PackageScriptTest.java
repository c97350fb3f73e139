package org.agentworkspace.server;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.ByteArrayOutputStream;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.util.ArrayList;
import java.util.Base64;
import java.util.HexFormat;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.zip.ZipEntry;
import java.util.zip.ZipFile;
import java.util.zip.ZipOutputStream;

import com.fasterxml.jackson.databind.JsonNode;
import org.agentworkspace.core.system.UpdateSettings;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * {@code scripts/package.sh} run by bash in a copy of the repository's layout with a small server jar: the zip holds
 * the jar and its libraries at its top, the manifest names the jar's version, the zip and its SHA-256 and size, and
 * with {@code --sign} the signature verifies with the public key as {@code --update-public-key} takes it.
 */
class PackageScriptTest {
    @TempDir
    Path tmp;

    @Test
    void makesAPackageAManifestAndASignatureTheServerAccepts() throws Exception {
        Path repo = tmp.resolve("repo");
        Path scripts = Files.createDirectories(repo.resolve("scripts"));
        for (String name : List.of("package.sh", "jdk.sh")) {
            Files.copy(Path.of("..", "scripts", name), scripts.resolve(name));
        }
        Path target = Files.createDirectories(repo.resolve("workspace-server/target/libs"));
        Files.writeString(target.resolve("a.jar"), "library");
        ByteArrayOutputStream jar = new ByteArrayOutputStream();
        try (ZipOutputStream z = new ZipOutputStream(jar)) {
            z.putNextEntry(new ZipEntry("org/agentworkspace/server/build.properties"));
            z.write("version=7.8.9-SNAPSHOT\n".getBytes(StandardCharsets.UTF_8));
        }
        Files.write(repo.resolve("workspace-server/target/workspace-server.jar"), jar.toByteArray());

        List<String> argv = new ArrayList<>(List.of("bash", "scripts/package.sh", "--out", tmp.resolve("dist").toString()));
        Path key = tmp.resolve("update.key");
        boolean openssl = run(List.of("openssl", "genpkey", "-algorithm", "ed25519", "-out", key.toString()), tmp) == 0;
        if (openssl) {
            argv.addAll(List.of("--sign", key.toString()));
        }
        assertEquals(0, run(argv, repo), Files.readString(tmp.resolve("out")));

        Path zip = tmp.resolve("dist/agent-workspace-7.8.9.zip");
        try (ZipFile z = new ZipFile(zip.toFile())) {
            List<String> names = z.stream().map(ZipEntry::getName).filter(n -> !n.endsWith("/")).sorted().toList();
            assertEquals(List.of("libs/a.jar", "workspace-server.jar"), names);
        }
        byte[] manifest = Files.readAllBytes(tmp.resolve("dist/manifest.json"));
        JsonNode m = TestServer.JSON.readTree(manifest);
        assertEquals("7.8.9", m.path("version").asText());
        assertEquals("agent-workspace-7.8.9.zip", m.path("url").asText());
        assertEquals(HexFormat.of().formatHex(MessageDigest.getInstance("SHA-256").digest(Files.readAllBytes(zip))),
                m.path("sha256").asText());
        assertEquals(Files.size(zip), m.path("size").asLong());

        Assumptions.assumeTrue(openssl, "openssl is not installed: the signature is not checked");
        run(List.of("bash", "-c", "openssl pkey -in update.key -pubout -outform DER | base64 -w0 > pub.b64"), tmp);
        java.security.Signature sig = java.security.Signature.getInstance("Ed25519");
        sig.initVerify(UpdateSettings.parsePublicKey(Files.readString(tmp.resolve("pub.b64"))));
        sig.update(manifest);
        assertTrue(sig.verify(Base64.getDecoder().decode(Files.readString(tmp.resolve("dist/manifest.json.sig"))
                .strip())));
    }

    private int run(List<String> argv, Path dir) throws IOException, InterruptedException {
        ProcessBuilder pb = new ProcessBuilder(argv).directory(dir.toFile()).redirectErrorStream(true)
                .redirectOutput(tmp.resolve("out").toFile());
        pb.environment().put("JAVA_HOME", System.getProperty("java.home"));
        Process p = pb.start();
        assertTrue(p.waitFor(60, TimeUnit.SECONDS));
        return p.exitValue();
    }
}
