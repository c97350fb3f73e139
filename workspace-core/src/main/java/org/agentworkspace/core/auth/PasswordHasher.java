package org.agentworkspace.core.auth;

import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Base64;
import java.util.concurrent.Semaphore;

import org.bouncycastle.crypto.generators.Argon2BytesGenerator;
import org.bouncycastle.crypto.params.Argon2Parameters;

/**
 * Argon2id password hashes in the PHC string format ({@code $argon2id$v=19$m=19456,t=2,p=1$salt$hash}), so the
 * parameters travel with each hash and can be raised later. At most {@code concurrency} hashes are computed at once:
 * each takes 19 MiB and about 100 ms, and a flood of logins must not exhaust memory.
 */
final class PasswordHasher {
    private static final int MEMORY_KIB = 19_456;
    private static final int ITERATIONS = 2;
    private static final int PARALLELISM = 1;
    private static final int SALT_BYTES = 16;
    private static final int HASH_BYTES = 32;
    private static final Base64.Encoder B64 = Base64.getEncoder().withoutPadding();
    private static final Base64.Decoder B64D = Base64.getDecoder();

    private final SecureRandom random = new SecureRandom();
    private final Semaphore permits;
    private volatile String dummyHash;

    PasswordHasher(int concurrency) {
        this.permits = new Semaphore(concurrency, true);
    }

    String hash(String password) {
        byte[] salt = new byte[SALT_BYTES];
        random.nextBytes(salt);
        byte[] hash = compute(password, salt, MEMORY_KIB, ITERATIONS, PARALLELISM, HASH_BYTES);
        return "$argon2id$v=19$m=" + MEMORY_KIB + ",t=" + ITERATIONS + ",p=" + PARALLELISM + "$"
                + B64.encodeToString(salt) + "$" + B64.encodeToString(hash);
    }

    /** Verifies in constant time with respect to the hash contents. A malformed stored hash never matches. */
    boolean verify(String password, String phc) {
        String[] parts = phc.split("\\$");
        // ["", "argon2id", "v=19", "m=..,t=..,p=..", salt, hash]
        if (parts.length != 6 || !"argon2id".equals(parts[1]) || !"v=19".equals(parts[2])) {
            return false;
        }
        int m;
        int t;
        int p;
        try {
            String[] params = parts[3].split(",");
            m = Integer.parseInt(params[0].substring(2));
            t = Integer.parseInt(params[1].substring(2));
            p = Integer.parseInt(params[2].substring(2));
        } catch (RuntimeException e) {
            return false;
        }
        byte[] salt = B64D.decode(parts[4]);
        byte[] expected = B64D.decode(parts[5]);
        byte[] actual = compute(password, salt, m, t, p, expected.length);
        return MessageDigest.isEqual(expected, actual);
    }

    /** Spends the same work as a real verification, for accounts that do not exist (no user enumeration by time). */
    void verifyDummy(String password) {
        String dummy = dummyHash;
        if (dummy == null) {
            dummy = hash("dummy-password-for-timing");
            dummyHash = dummy;
        }
        verify(password, dummy);
    }

    private byte[] compute(String password, byte[] salt, int memoryKib, int iterations, int parallelism, int len) {
        Argon2Parameters params = new Argon2Parameters.Builder(Argon2Parameters.ARGON2_id)
                .withVersion(Argon2Parameters.ARGON2_VERSION_13)
                .withMemoryAsKB(memoryKib)
                .withIterations(iterations)
                .withParallelism(parallelism)
                .withSalt(salt)
                .build();
        Argon2BytesGenerator generator = new Argon2BytesGenerator();
        generator.init(params);
        byte[] out = new byte[len];
        permits.acquireUninterruptibly();
        try {
            generator.generateBytes(password.getBytes(StandardCharsets.UTF_8), out);
        } finally {
            permits.release();
        }
        return out;
    }
}
