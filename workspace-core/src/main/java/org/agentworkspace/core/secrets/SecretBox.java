package org.agentworkspace.core.secrets;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.SecureRandom;
import java.util.Arrays;
import java.util.Base64;
import java.util.Objects;

import javax.crypto.Cipher;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

import org.agentworkspace.core.store.SecureFiles;

/**
 * Seals small secrets (tokens, API keys of providers) for storage: AES-256-GCM with a key kept in the data directory.
 *
 * <p>The key is 32 random bytes in {@code <dataDir>/secret.key}, created on first use with mode 0600. Each value gets
 * a fresh random 96-bit nonce; the 128-bit tag authenticates the ciphertext <em>and</em> a context string chosen
 * by the caller (for example {@code user-secret:42:git-token}), so a sealed value copied to another row, user or
 * purpose does not open. Sealed text is {@code v1:} followed by base64 of nonce and ciphertext-with-tag; the prefix
 * names the format so a later key or algorithm can be introduced beside it.
 *
 * <pre>{@code
 * SecretBox box = engine.secretBox();
 * String sealed = box.seal("ghp_…", "user-secret:42:git-token");   // store this
 * String token = box.open(sealed, "user-secret:42:git-token");      // SecretBox.Unreadable if tampered
 * }</pre>
 *
 * Losing or replacing {@code secret.key} makes every sealed value unreadable ({@link Unreadable}); the values
 * must then be entered again. Thread-safe.
 */
public final class SecretBox {
    /** The key file's name in the data directory. */
    public static final String KEY_FILE = "secret.key";
    private static final String VERSION = "v1:";
    /** The key's length in bytes. */
    public static final int KEY_BYTES = 32;
    private static final int NONCE_BYTES = 12;
    private static final int TAG_BITS = 128;
    /** Longest plaintext accepted, in UTF-8 bytes. */
    public static final int MAX_PLAINTEXT_BYTES = 64 * 1024;

    private final SecretKeySpec key;
    private final SecureRandom random = new SecureRandom();

    private SecretBox(byte[] key) {
        this.key = new SecretKeySpec(key, "AES");
    }

    /** The box of a data directory: loads {@code secret.key}, creating it (0600) when missing. */
    public static SecretBox open(Path dataDir) {
        try {
            return new SecretBox(SecureFiles.loadOrCreateSecret(dataDir.resolve(KEY_FILE), KEY_BYTES));
        } catch (IOException e) {
            throw new UncheckedIOException("cannot read or create the secret key", e);
        }
    }

    /** A box over a given 256-bit key (tests, tools). */
    public static SecretBox withKey(byte[] key) {
        if (key == null || key.length != KEY_BYTES) {
            throw new IllegalArgumentException("the key must be 32 bytes");
        }
        return new SecretBox(key.clone());
    }

    /**
     * Encrypts {@code plaintext} bound to {@code context}.
     *
     * @param context what the value is for; the same text must be given to {@link #open}
     * @return {@code v1:<base64>}
     */
    public String seal(String plaintext, String context) {
        Objects.requireNonNull(plaintext, "plaintext");
        Objects.requireNonNull(context, "context");
        byte[] clear = plaintext.getBytes(StandardCharsets.UTF_8);
        if (clear.length > MAX_PLAINTEXT_BYTES) {
            throw new IllegalArgumentException("secret too long");
        }
        byte[] nonce = new byte[NONCE_BYTES];
        random.nextBytes(nonce);
        try {
            Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
            cipher.init(Cipher.ENCRYPT_MODE, key, new GCMParameterSpec(TAG_BITS, nonce));
            cipher.updateAAD(aad(context));
            byte[] sealed = cipher.doFinal(clear);
            ByteBuffer out = ByteBuffer.allocate(NONCE_BYTES + sealed.length).put(nonce).put(sealed);
            return VERSION + Base64.getEncoder().encodeToString(out.array());
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("AES-GCM is not available", e);
        } finally {
            Arrays.fill(clear, (byte) 0);
        }
    }

    /**
     * Decrypts a value sealed with the same key and context.
     *
     * @throws Unreadable when the text is not a sealed value, was changed, belongs to another context, or was sealed
     *                    with another key
     */
    public String open(String sealed, String context) {
        Objects.requireNonNull(context, "context");
        if (sealed == null || !sealed.startsWith(VERSION)) {
            throw new Unreadable();
        }
        byte[] raw;
        try {
            raw = Base64.getDecoder().decode(sealed.substring(VERSION.length()));
        } catch (IllegalArgumentException e) {
            throw new Unreadable();
        }
        if (raw.length < NONCE_BYTES + TAG_BITS / 8) {
            throw new Unreadable();
        }
        try {
            Cipher cipher = Cipher.getInstance("AES/GCM/NoPadding");
            cipher.init(Cipher.DECRYPT_MODE, key, new GCMParameterSpec(TAG_BITS, raw, 0, NONCE_BYTES));
            cipher.updateAAD(aad(context));
            byte[] clear = cipher.doFinal(raw, NONCE_BYTES, raw.length - NONCE_BYTES);
            try {
                return new String(clear, StandardCharsets.UTF_8);
            } finally {
                Arrays.fill(clear, (byte) 0);
            }
        } catch (javax.crypto.AEADBadTagException e) {
            throw new Unreadable();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("AES-GCM is not available", e);
        }
    }

    /**
     * The mask shown instead of a secret: {@code "…"} plus its last four characters when it is at least 16
     * characters long (so the tail is a small part of it), otherwise {@code "…"} alone.
     */
    public static String mask(String secret) {
        return "…" + tail(secret);
    }

    /** The characters {@link #mask} reveals (possibly none). */
    public static String tail(String secret) {
        if (secret == null || secret.length() < 16) {
            return "";
        }
        return secret.substring(secret.length() - 4);
    }

    private static byte[] aad(String context) {
        return ("agent-workspace/" + context).getBytes(StandardCharsets.UTF_8);
    }

    /** A sealed value that cannot be opened: changed, for another context, or sealed with another key. */
    public static final class Unreadable extends RuntimeException {
        private static final long serialVersionUID = 1L;

        Unreadable() {
            super("the sealed value cannot be opened (changed, for another purpose, or sealed with another key)",
                    null, false, false);
        }
    }

    @Override
    public String toString() {
        return "SecretBox[key=***]";
    }
}
