package org.agentworkspace.core.secrets;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.time.Clock;
import java.util.Base64;
import java.util.Optional;

import org.agentworkspace.core.store.SecureFiles;
import org.agentworkspace.core.store.Store;
import org.jdbi.v3.core.JdbiException;

/**
 * The keys every node of a shared (PostgreSQL) store must agree on: the secret that signs session tokens and the key
 * that seals stored secrets (docs/scale-out.md "Identity").
 *
 * <p>Each key is one row of {@code shared_keys}, created once: the first node to start inserts its candidate with
 * {@code INSERT … ON CONFLICT (name) DO NOTHING} and every node, the first included, then uses the row it reads back,
 * so two nodes starting at the same moment still end up with one key. The candidate is the node's existing key file
 * when it has one (a single-node data folder moving to several nodes keeps its session tokens and sealed provider
 * keys valid), else fresh random bytes. The key files are never written or replaced here.
 *
 * <p>A node whose own file differs from the stored key (it ran on its own before joining) uses the stored key and
 * logs a warning: tokens it signed and values it sealed with its old key no longer open.
 */
public final class SharedKeys {
    private static final System.Logger LOG = System.getLogger(SharedKeys.class.getName());
    private static final String PREFIX = "b64:";

    private SharedKeys() {
    }

    /**
     * The shared key {@code name} of {@code length} bytes: the stored one, or this node's candidate (its file
     * {@code seedFile} when it exists, else random) stored now when the store has none yet.
     *
     * @throws IOException the seed file exists but cannot be read or has the wrong length
     * @throws IllegalStateException the stored value is not a key of {@code length} bytes
     */
    public static byte[] loadOrCreate(Store store, String name, Path seedFile, int length, Clock clock)
            throws IOException {
        byte[] local = Files.exists(seedFile) ? SecureFiles.loadOrCreateSecret(seedFile, length) : null;
        Optional<byte[]> stored = read(store, name, length);
        if (stored.isEmpty()) {
            byte[] candidate = local;
            if (candidate == null) {
                candidate = new byte[length];
                new SecureRandom().nextBytes(candidate);
            }
            String value = PREFIX + Base64.getEncoder().encodeToString(candidate);
            try {
                int inserted = store.write(h -> h.createUpdate("INSERT INTO shared_keys (name, value, created_at) "
                                + "VALUES (:n, :v, :at) ON CONFLICT (name) DO NOTHING")
                        .bind("n", name).bind("v", value).bind("at", clock.millis()).execute());
                if (inserted == 1) {
                    LOG.log(System.Logger.Level.INFO, "stored the shared key " + name + " in the store"
                            + (local != null ? " (from this node's " + seedFile.getFileName() + ")" : " (new)"));
                }
            } catch (JdbiException e) {
                throw Store.unavailable(e);
            }
            stored = read(store, name, length);
        }
        byte[] key = stored.orElseThrow(() -> new IllegalStateException("the shared key " + name + " is missing"));
        if (local != null && !MessageDigest.isEqual(local, key)) {
            LOG.log(System.Logger.Level.WARNING, "this node's " + seedFile + " differs from the store's shared key "
                    + name + "; the store's key is used: session tokens signed and values sealed with the file's key "
                    + "on this node no longer open (see docs/scale-out.md)");
        }
        return key;
    }

    private static Optional<byte[]> read(Store store, String name, int length) {
        Optional<String> v;
        try {
            v = store.read(h -> h.createQuery("SELECT value FROM shared_keys WHERE name = :n").bind("n", name)
                    .mapTo(String.class).findOne());
        } catch (JdbiException e) {
            throw Store.unavailable(e);
        }
        return v.map(text -> {
            if (!text.startsWith(PREFIX)) {
                throw new IllegalStateException("the shared key " + name + " has an unknown format");
            }
            byte[] key = Base64.getDecoder().decode(text.substring(PREFIX.length()));
            if (key.length != length) {
                throw new IllegalStateException("the shared key " + name + " has the wrong length");
            }
            return key;
        });
    }
}
