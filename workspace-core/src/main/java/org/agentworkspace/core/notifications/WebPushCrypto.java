package org.agentworkspace.core.notifications;

import java.io.ByteArrayOutputStream;
import java.net.URI;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.PrivateKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.interfaces.ECPublicKey;
import java.time.Instant;
import java.util.Arrays;

import javax.crypto.Cipher;
import javax.crypto.KeyAgreement;
import javax.crypto.Mac;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * The two pieces of cryptography a Web Push delivery needs, with the JDK only:
 *
 * <ul>
 *   <li>{@link #encrypt}: RFC 8291 message encryption in the RFC 8188 {@code aes128gcm} content coding — an
 *       ephemeral P-256 key pair per message, ECDH with the subscription's {@code p256dh} key, HKDF-SHA-256 keyed
 *       with its {@code auth} secret, one AES-128-GCM record.</li>
 *   <li>{@link #vapidJwt}: the RFC 8292 VAPID token, an ES256 JWT whose signature is the JOSE form (R || S, 64
 *       bytes), not DER.</li>
 * </ul>
 */
public final class WebPushCrypto {
    /** The record size written in the header; one record carries the whole message. */
    static final int RECORD_SIZE = 4096;
    /** Largest plaintext one record holds: record size minus the 16-byte tag and the 1-byte delimiter. */
    public static final int MAX_PLAINTEXT = RECORD_SIZE - 16 - 1;
    private static final SecureRandom RANDOM = new SecureRandom();

    private WebPushCrypto() {
    }

    /**
     * Encrypts {@code plaintext} for a subscription.
     *
     * @param uaPublic the subscription's {@code p256dh} key (65-byte point)
     * @param authSecret the subscription's {@code auth} secret (16 bytes)
     * @return the request body: header (salt, record size, key id = the ephemeral public key) and the record
     */
    public static byte[] encrypt(byte[] plaintext, byte[] uaPublic, byte[] authSecret) {
        return encrypt(plaintext, uaPublic, authSecret, P256.generate(), randomSalt());
    }

    static byte[] encrypt(byte[] plaintext, byte[] uaPublic, byte[] authSecret, KeyPair ephemeral, byte[] salt) {
        if (plaintext.length > MAX_PLAINTEXT) {
            throw new IllegalArgumentException("a push message holds at most " + MAX_PLAINTEXT + " bytes");
        }
        ECPublicKey ua = P256.decode(uaPublic).orElseThrow(() ->
                new IllegalArgumentException("p256dh is not a P-256 point"));
        try {
            byte[] asPublic = P256.encode((ECPublicKey) ephemeral.getPublic());
            KeyAgreement ka = KeyAgreement.getInstance("ECDH");
            ka.init(ephemeral.getPrivate());
            ka.doPhase(ua, true);
            byte[] ecdhSecret = ka.generateSecret();
            // RFC 8291 §3.4: IKM = HKDF(salt = auth, ikm = ecdh, info = "WebPush: info" 0x00 ua_public as_public, 32)
            byte[] keyInfo = concat("WebPush: info".getBytes(StandardCharsets.US_ASCII), new byte[] {0}, uaPublic,
                    asPublic);
            byte[] ikm = hkdf(authSecret, ecdhSecret, keyInfo, 32);
            // RFC 8188 §2.2/2.3: CEK and nonce from the salt
            byte[] cek = hkdf(salt, ikm, concat("Content-Encoding: aes128gcm".getBytes(StandardCharsets.US_ASCII),
                    new byte[] {0}), 16);
            byte[] nonce = hkdf(salt, ikm, concat("Content-Encoding: nonce".getBytes(StandardCharsets.US_ASCII),
                    new byte[] {0}), 12);
            byte[] padded = Arrays.copyOf(plaintext, plaintext.length + 1);
            padded[plaintext.length] = 0x02; // the last (and only) record's delimiter
            Cipher c = Cipher.getInstance("AES/GCM/NoPadding");
            c.init(Cipher.ENCRYPT_MODE, new SecretKeySpec(cek, "AES"), new GCMParameterSpec(128, nonce));
            byte[] record = c.doFinal(padded);
            ByteBuffer out = ByteBuffer.allocate(16 + 4 + 1 + asPublic.length + record.length);
            out.put(salt).putInt(RECORD_SIZE).put((byte) asPublic.length).put(asPublic).put(record);
            return out.array();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("web push encryption failed", e);
        }
    }

    /**
     * A VAPID token for one push service: {@code aud} is the endpoint's origin, {@code exp} at most 24 hours ahead
     * (12 hours here), {@code sub} the operator's contact.
     */
    public static String vapidJwt(URI endpoint, String subject, Instant now, PrivateKey key) {
        String header = P256.b64("{\"typ\":\"JWT\",\"alg\":\"ES256\"}".getBytes(StandardCharsets.UTF_8));
        String claims = "{\"aud\":" + quote(origin(endpoint)) + ",\"exp\":" + now.plusSeconds(12 * 3600)
                .getEpochSecond() + ",\"sub\":" + quote(subject) + "}";
        String input = header + "." + P256.b64(claims.getBytes(StandardCharsets.UTF_8));
        try {
            Signature s = Signature.getInstance("SHA256withECDSAinP1363Format");
            s.initSign(key);
            s.update(input.getBytes(StandardCharsets.US_ASCII));
            return input + "." + P256.b64(s.sign());
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("ES256 signing failed", e);
        }
    }

    /** {@code scheme://host[:port]} of an endpoint, the {@code aud} of its VAPID token. */
    static String origin(URI endpoint) {
        int port = endpoint.getPort();
        String scheme = endpoint.getScheme().toLowerCase(java.util.Locale.ROOT);
        boolean defaultPort = port == -1 || (scheme.equals("https") && port == 443)
                || (scheme.equals("http") && port == 80);
        return scheme + "://" + endpoint.getHost().toLowerCase(java.util.Locale.ROOT)
                + (defaultPort ? "" : ":" + port);
    }

    /** RFC 5869 HKDF-SHA-256 for outputs of at most 32 bytes (one expand block). */
    static byte[] hkdf(byte[] salt, byte[] ikm, byte[] info, int length) throws GeneralSecurityException {
        Mac mac = Mac.getInstance("HmacSHA256");
        mac.init(new SecretKeySpec(salt, "HmacSHA256"));
        byte[] prk = mac.doFinal(ikm);
        mac.init(new SecretKeySpec(prk, "HmacSHA256"));
        mac.update(info);
        mac.update((byte) 1);
        return Arrays.copyOf(mac.doFinal(), length);
    }

    private static byte[] randomSalt() {
        byte[] salt = new byte[16];
        RANDOM.nextBytes(salt);
        return salt;
    }

    private static byte[] concat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }

    private static String quote(String s) {
        StringBuilder b = new StringBuilder("\"");
        for (char ch : s.toCharArray()) {
            switch (ch) {
                case '"' -> b.append("\\\"");
                case '\\' -> b.append("\\\\");
                default -> {
                    if (ch < 0x20) {
                        b.append(String.format("\\u%04x", (int) ch));
                    } else {
                        b.append(ch);
                    }
                }
            }
        }
        return b.append('"').toString();
    }
}
