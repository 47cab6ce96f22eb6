package io.tablestorecdc.spark;

import io.tablestorecdc.checkpoint.model.CredentialsSource;
import io.tablestorecdc.checkpoint.model.TablestoreCredentials;
import io.tablestorecdc.checkpoint.model.TablestoreEndpoint;
import java.nio.ByteBuffer;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.NoSuchAlgorithmException;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Objects;

/**
 * Which SDK clients may be shared: the same endpoint, instance and credentials.
 *
 * <p>The secret and the STS token enter only as a digest salted with a random value of this JVM, so
 * that two queries with different credentials never share a client while the key itself holds
 * nothing that reveals a secret. {@link #toString()} leaves the digest out as well (invariant 9).
 *
 * @param endpoint the instance's endpoint
 * @param instanceName the instance name
 * @param credentials where the credentials come from, with no secret: the access key id of a fixed
 *     key (shown in plans and logs already), else the provider and what it reads
 * @param credentialsDigest salted SHA-256 of a fixed key's secret and STS token, hex
 */
record ClientKey(
        String endpoint, String instanceName, String credentials, String credentialsDigest) {

    private static final byte[] JVM_SALT = salt();

    ClientKey {
        Objects.requireNonNull(endpoint, "endpoint");
        Objects.requireNonNull(instanceName, "instanceName");
        Objects.requireNonNull(credentials, "credentials");
        Objects.requireNonNull(credentialsDigest, "credentialsDigest");
    }

    static ClientKey of(TablestoreEndpoint endpoint) {
        CredentialsSource credentials = endpoint.credentials();
        return new ClientKey(
                endpoint.endpoint(),
                endpoint.instanceName(),
                credentials.describe(),
                credentials.fixedCredentials().map(ClientKey::digest).orElse(""));
    }

    private static String digest(TablestoreCredentials credentials) {
        try {
            MessageDigest sha = MessageDigest.getInstance("SHA-256");
            sha.update(JVM_SALT);
            update(sha, credentials.accessKeySecret());
            update(sha, credentials.stsToken().orElse(""));
            return HexFormat.of().formatHex(sha.digest());
        } catch (NoSuchAlgorithmException e) {
            throw new IllegalStateException("This JVM offers no SHA-256; every JVM must", e);
        }
    }

    // Length-prefixed, so that no two (secret, token) pairs feed the digest the same bytes.
    private static void update(MessageDigest sha, String text) {
        byte[] bytes = text.getBytes(StandardCharsets.UTF_8);
        sha.update(ByteBuffer.allocate(Integer.BYTES).putInt(bytes.length).array());
        sha.update(bytes);
    }

    private static byte[] salt() {
        byte[] salt = new byte[16];
        new SecureRandom().nextBytes(salt);
        return salt;
    }

    @Override
    public String toString() {
        return "ClientKey{endpoint="
                + endpoint
                + ", instance="
                + instanceName
                + ", "
                + credentials
                + "}";
    }
}
