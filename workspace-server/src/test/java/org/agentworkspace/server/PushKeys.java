package org.agentworkspace.server;

import java.io.ByteArrayOutputStream;
import java.math.BigInteger;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.PublicKey;
import java.security.SecureRandom;
import java.security.Signature;
import java.security.interfaces.ECPublicKey;
import java.security.spec.ECGenParameterSpec;
import java.security.spec.ECPoint;
import java.security.spec.ECPublicKeySpec;
import java.util.Arrays;
import java.util.Base64;
import java.util.Map;

import javax.crypto.Cipher;
import javax.crypto.KeyAgreement;
import javax.crypto.Mac;
import javax.crypto.spec.GCMParameterSpec;
import javax.crypto.spec.SecretKeySpec;

/**
 * The browser's side of a Web Push subscription, written from RFC 8291 and RFC 8188 as a user agent would read a
 * message (independently of the server's code): a P-256 key pair and a 16-byte auth secret; {@link #decrypt} opens
 * an {@code aes128gcm} body, {@link #verifyJwt} checks a VAPID token's ES256 signature.
 */
public record PushKeys(KeyPair pair, byte[] auth) {
    private static final SecureRandom RANDOM = new SecureRandom();

    public static PushKeys random() {
        try {
            KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
            g.initialize(new ECGenParameterSpec("secp256r1"));
            byte[] auth = new byte[16];
            RANDOM.nextBytes(auth);
            return new PushKeys(g.generateKeyPair(), auth);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException(e);
        }
    }

    /** {@code keys} of {@code PushSubscription.toJSON()}. */
    public Map<String, String> json() {
        return Map.of("p256dh", b64(point((ECPublicKey) pair.getPublic())), "auth", b64(auth));
    }

    /** Decrypts an {@code aes128gcm} message body (RFC 8188 §2, RFC 8291 §3.4). */
    public byte[] decrypt(byte[] body) throws GeneralSecurityException {
        ByteBuffer in = ByteBuffer.wrap(body);
        byte[] salt = new byte[16];
        in.get(salt);
        int rs = in.getInt();
        int idlen = in.get() & 0xff;
        byte[] keyId = new byte[idlen];
        in.get(keyId);
        byte[] ciphertext = new byte[in.remaining()];
        in.get(ciphertext);
        if (ciphertext.length > rs) {
            throw new GeneralSecurityException("one record expected");
        }
        PublicKey asPublic = publicKey(keyId);
        KeyAgreement ka = KeyAgreement.getInstance("ECDH");
        ka.init(pair.getPrivate());
        ka.doPhase(asPublic, true);
        byte[] ecdh = ka.generateSecret();
        byte[] uaPublic = point((ECPublicKey) pair.getPublic());
        byte[] prkKey = hmac(auth, ecdh);
        byte[] ikm = hmac(prkKey, cat("WebPush: info\0".getBytes(StandardCharsets.US_ASCII), uaPublic, keyId,
                new byte[] {1}));
        byte[] prk = hmac(salt, ikm);
        byte[] cek = Arrays.copyOf(hmac(prk, "Content-Encoding: aes128gcm\0\1".getBytes(StandardCharsets.US_ASCII)),
                16);
        byte[] nonce = Arrays.copyOf(hmac(prk, "Content-Encoding: nonce\0\1".getBytes(StandardCharsets.US_ASCII)), 12);
        Cipher c = Cipher.getInstance("AES/GCM/NoPadding");
        c.init(Cipher.DECRYPT_MODE, new SecretKeySpec(cek, "AES"), new GCMParameterSpec(128, nonce));
        byte[] padded = c.doFinal(ciphertext);
        int end = padded.length - 1;
        while (end >= 0 && padded[end] == 0) {
            end--;
        }
        if (end < 0 || padded[end] != 2) {
            throw new GeneralSecurityException("the last record must end with delimiter 2");
        }
        return Arrays.copyOf(padded, end);
    }

    /** Verifies a JWS compact ES256 token (signature R || S) with a public key given as an uncompressed point. */
    public static boolean verifyJwt(String jwt, String publicKeyB64) throws GeneralSecurityException {
        String[] parts = jwt.split("\\.");
        if (parts.length != 3) {
            return false;
        }
        byte[] sig = Base64.getUrlDecoder().decode(parts[2]);
        if (sig.length != 64) {
            return false;
        }
        Signature s = Signature.getInstance("SHA256withECDSAinP1363Format");
        s.initVerify(publicKey(Base64.getUrlDecoder().decode(publicKeyB64)));
        s.update((parts[0] + "." + parts[1]).getBytes(StandardCharsets.US_ASCII));
        return s.verify(sig);
    }

    public static PublicKey publicKey(byte[] point) throws GeneralSecurityException {
        if (point.length != 65 || point[0] != 4) {
            throw new GeneralSecurityException("not an uncompressed point");
        }
        java.security.AlgorithmParameters ap = java.security.AlgorithmParameters.getInstance("EC");
        ap.init(new ECGenParameterSpec("secp256r1"));
        return KeyFactory.getInstance("EC").generatePublic(new ECPublicKeySpec(new ECPoint(
                new BigInteger(1, Arrays.copyOfRange(point, 1, 33)), new BigInteger(1, Arrays.copyOfRange(point, 33, 65))),
                ap.getParameterSpec(java.security.spec.ECParameterSpec.class)));
    }

    public static byte[] point(ECPublicKey k) {
        byte[] out = new byte[65];
        out[0] = 4;
        byte[] x = k.getW().getAffineX().toByteArray();
        byte[] y = k.getW().getAffineY().toByteArray();
        int lx = Math.min(32, x.length);
        int ly = Math.min(32, y.length);
        System.arraycopy(x, x.length - lx, out, 1 + 32 - lx, lx);
        System.arraycopy(y, y.length - ly, out, 33 + 32 - ly, ly);
        return out;
    }

    public static String b64(byte[] b) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(b);
    }

    private static byte[] hmac(byte[] key, byte[] data) throws GeneralSecurityException {
        Mac m = Mac.getInstance("HmacSHA256");
        m.init(new SecretKeySpec(key, "HmacSHA256"));
        return m.doFinal(data);
    }

    private static byte[] cat(byte[]... parts) {
        ByteArrayOutputStream out = new ByteArrayOutputStream();
        for (byte[] p : parts) {
            out.writeBytes(p);
        }
        return out.toByteArray();
    }
}
