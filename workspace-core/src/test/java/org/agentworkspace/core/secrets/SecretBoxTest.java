package org.agentworkspace.core.secrets;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Base64;

import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SecretBoxTest {
    @TempDir
    Path dir;

    @Test
    void sealsWithAPrivateKeyFileAndOpensOnlyWhatItSealed() throws Exception {
        SecretBox box = SecretBox.open(dir);
        Path keyFile = dir.resolve(SecretBox.KEY_FILE);
        assertEquals(32, Files.size(keyFile));
        assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(keyFile)));

        String secret = "sk-ant-CANARY-0123456789";
        String a = box.seal(secret, "user-secret:1:git-token");
        String b = box.seal(secret, "user-secret:1:git-token");
        assertTrue(a.startsWith("v1:"), a);
        assertNotEquals(a, b, "a fresh nonce per value");
        assertFalse(a.contains("CANARY"));
        assertEquals(secret, box.open(a, "user-secret:1:git-token"));
        assertEquals(secret, SecretBox.open(dir).open(b, "user-secret:1:git-token"), "the key file is reused");
        assertEquals("ünïcødé ✓", box.open(box.seal("ünïcødé ✓", "c"), "c"));
        assertEquals("", box.open(box.seal("", "c"), "c"));

        assertThrows(SecretBox.Unreadable.class, () -> box.open(a, "user-secret:2:git-token"), "another context");
        byte[] raw = Base64.getDecoder().decode(a.substring(3));
        raw[raw.length - 20] ^= 1;
        String tampered = "v1:" + Base64.getEncoder().encodeToString(raw);
        assertThrows(SecretBox.Unreadable.class, () -> box.open(tampered, "user-secret:1:git-token"));
        assertThrows(SecretBox.Unreadable.class, () -> box.open("v2:" + a.substring(3), "user-secret:1:git-token"));
        assertThrows(SecretBox.Unreadable.class, () -> box.open("v1:!!!", "c"));
        assertThrows(SecretBox.Unreadable.class, () -> box.open("v1:AAAA", "c"));
        assertThrows(SecretBox.Unreadable.class, () -> box.open(null, "c"));
        SecretBox other = SecretBox.withKey(new byte[32]);
        SecretBox.Unreadable e = assertThrows(SecretBox.Unreadable.class,
                () -> other.open(a, "user-secret:1:git-token"), "another key");
        assertFalse(e.getMessage().contains("CANARY"));
        assertFalse(box.toString().contains(Base64.getEncoder().encodeToString(Files.readAllBytes(keyFile))));
    }

    @Test
    void masksRevealAtMostFourCharactersOfLongSecrets() {
        assertEquals("…wxyz", SecretBox.mask("abcdefghijklmnopqrstuvwxyz"));
        assertEquals("…", SecretBox.mask("fifteen-chars-x"));
        assertEquals("…", SecretBox.mask(null));
        assertEquals("", SecretBox.tail("short"));
    }
}
