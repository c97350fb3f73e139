package org.agentworkspace.core.notifications;

import java.math.BigInteger;
import java.security.AlgorithmParameters;
import java.security.GeneralSecurityException;
import java.security.KeyFactory;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.interfaces.ECPublicKey;
import java.security.spec.ECGenParameterSpec;
import java.security.spec.ECParameterSpec;
import java.security.spec.ECPoint;
import java.security.spec.ECPublicKeySpec;
import java.util.Arrays;
import java.util.Base64;
import java.util.Optional;

/**
 * The NIST P-256 curve as Web Push uses it: public keys travel as 65-byte uncompressed points ({@code 0x04 || X ||
 * Y}, SEC 1 §2.3.3) in unpadded base64url. Everything here is the JDK's (SunEC); nothing is hand-rolled except the
 * on-curve check of a received point.
 */
public final class P256 {
    /** Length of an uncompressed point. */
    public static final int POINT_BYTES = 65;
    private static final BigInteger P = new BigInteger(
            "ffffffff00000001000000000000000000000000ffffffffffffffffffffffff", 16);
    private static final BigInteger B = new BigInteger(
            "5ac635d8aa3a93e7b3ebbd55769886bc651d06b0cc53b0f63bce3c3e27d2604b", 16);
    private static final ECParameterSpec PARAMS;

    static {
        try {
            AlgorithmParameters ap = AlgorithmParameters.getInstance("EC");
            ap.init(new ECGenParameterSpec("secp256r1"));
            PARAMS = ap.getParameterSpec(ECParameterSpec.class);
        } catch (GeneralSecurityException e) {
            throw new ExceptionInInitializerError(e);
        }
    }

    private P256() {
    }

    public static ECParameterSpec params() {
        return PARAMS;
    }

    /** A fresh key pair. */
    public static KeyPair generate() {
        try {
            KeyPairGenerator g = KeyPairGenerator.getInstance("EC");
            g.initialize(new ECGenParameterSpec("secp256r1"));
            return g.generateKeyPair();
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("P-256 is not available", e);
        }
    }

    /** {@code 0x04 || X || Y}, each coordinate 32 bytes big-endian. */
    public static byte[] encode(ECPublicKey key) {
        byte[] out = new byte[POINT_BYTES];
        out[0] = 0x04;
        copy32(key.getW().getAffineX(), out, 1);
        copy32(key.getW().getAffineY(), out, 33);
        return out;
    }

    /**
     * The public key of an uncompressed point, or empty when the bytes are not one: wrong length or prefix, a
     * coordinate outside the field, or a point that is not on the curve (an invalid-curve attack would use one).
     */
    public static Optional<ECPublicKey> decode(byte[] point) {
        if (point == null || point.length != POINT_BYTES || point[0] != 0x04) {
            return Optional.empty();
        }
        BigInteger x = new BigInteger(1, Arrays.copyOfRange(point, 1, 33));
        BigInteger y = new BigInteger(1, Arrays.copyOfRange(point, 33, 65));
        if (x.compareTo(P) >= 0 || y.compareTo(P) >= 0) {
            return Optional.empty();
        }
        // y² = x³ − 3x + b (mod p)
        BigInteger left = y.modPow(BigInteger.TWO, P);
        BigInteger right = x.modPow(BigInteger.valueOf(3), P).subtract(x.multiply(BigInteger.valueOf(3)))
                .add(B).mod(P);
        if (!left.equals(right)) {
            return Optional.empty();
        }
        try {
            return Optional.of((ECPublicKey) KeyFactory.getInstance("EC")
                    .generatePublic(new ECPublicKeySpec(new ECPoint(x, y), PARAMS)));
        } catch (GeneralSecurityException e) {
            return Optional.empty();
        }
    }

    /** Unpadded base64url, as Web Push and JOSE write binary values. */
    public static String b64(byte[] bytes) {
        return Base64.getUrlEncoder().withoutPadding().encodeToString(bytes);
    }

    /** Decodes base64url with or without padding; empty when it is not base64url. */
    public static Optional<byte[]> unb64(String text) {
        if (text == null) {
            return Optional.empty();
        }
        String t = text.strip();
        while (t.endsWith("=")) {
            t = t.substring(0, t.length() - 1);
        }
        if (!t.matches("[A-Za-z0-9_-]*")) {
            return Optional.empty();
        }
        try {
            return Optional.of(Base64.getUrlDecoder().decode(t));
        } catch (IllegalArgumentException e) {
            return Optional.empty();
        }
    }

    private static void copy32(BigInteger v, byte[] out, int at) {
        byte[] b = v.toByteArray();
        int len = Math.min(b.length, 32);
        System.arraycopy(b, b.length - len, out, at + 32 - len, len);
    }
}
