package io.tablestorecdc.emulator.server;

import java.nio.charset.StandardCharsets;
import java.security.GeneralSecurityException;
import java.security.MessageDigest;
import java.util.Base64;
import java.util.Map;
import java.util.TreeMap;
import javax.crypto.Mac;
import javax.crypto.spec.SecretKeySpec;

/**
 * The V2 signatures of the Tablestore protocol: the one a client puts on a request ({@code
 * x-ots-signature}) and the one the server puts on a response ({@code authorization}).
 */
final class Signatures {

    private static final String OTS_PREFIX = "x-ots-";

    private Signatures() {}

    /**
     * The request signature: HMAC-SHA1 over {@code "/" + action + "\nPOST\n\n"} and every {@code
     * x-ots-*} header but the signature itself, sorted, as {@code name:trimmedValue\n}.
     *
     * @param headers request headers with lower-case names
     */
    static String request(
            String secret, String action, String method, Map<String, String> headers) {
        StringBuilder toSign = new StringBuilder();
        toSign.append('/').append(action).append('\n').append(method).append("\n\n");
        for (Map.Entry<String, String> e : new TreeMap<>(headers).entrySet()) {
            if (e.getKey().startsWith(OTS_PREFIX) && !e.getKey().equals("x-ots-signature")) {
                toSign.append(e.getKey()).append(':').append(e.getValue().trim()).append('\n');
            }
        }
        return hmacSha1(secret, toSign.toString());
    }

    /**
     * The response signature: HMAC-SHA1 over every {@code x-ots-*} response header, sorted, as
     * {@code name:value\n}, followed by {@code "/" + action}.
     *
     * @param headers response headers with lower-case names
     */
    static String response(String secret, String action, Map<String, String> headers) {
        StringBuilder toSign = new StringBuilder();
        for (Map.Entry<String, String> e : new TreeMap<>(headers).entrySet()) {
            if (e.getKey().startsWith(OTS_PREFIX)) {
                toSign.append(e.getKey()).append(':').append(e.getValue()).append('\n');
            }
        }
        toSign.append('/').append(action);
        return hmacSha1(secret, toSign.toString());
    }

    static String contentMd5(byte[] body) {
        try {
            return Base64.getEncoder()
                    .encodeToString(MessageDigest.getInstance("MD5").digest(body));
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("The JDK lacks MD5", e);
        }
    }

    /** Compares in constant time so a signature cannot be guessed byte by byte. */
    static boolean same(String expected, String actual) {
        return MessageDigest.isEqual(
                expected.getBytes(StandardCharsets.UTF_8), actual.getBytes(StandardCharsets.UTF_8));
    }

    private static String hmacSha1(String secret, String text) {
        try {
            Mac mac = Mac.getInstance("HmacSHA1");
            mac.init(new SecretKeySpec(secret.getBytes(StandardCharsets.UTF_8), "HmacSHA1"));
            byte[] digest = mac.doFinal(text.getBytes(StandardCharsets.UTF_8));
            return Base64.getEncoder().encodeToString(digest);
        } catch (GeneralSecurityException e) {
            throw new IllegalStateException("The JDK lacks HmacSHA1", e);
        }
    }
}
