package io.tablestorecdc.checkpoint.model;

import io.tablestorecdc.checkpoint.annotation.Internal;
import java.util.Objects;
import java.util.Optional;

/**
 * An access key pair and optional STS token.
 *
 * <p>The secret and the STS token never appear in {@link #toString()} (invariant 9); the only way
 * to read them is the explicit accessors that the SDK adapters call when they build a client.
 */
@Internal
public final class TablestoreCredentials {

    private final String accessKeyId;
    private final String accessKeySecret;
    private final String stsToken;

    private TablestoreCredentials(String accessKeyId, String accessKeySecret, String stsToken) {
        this.accessKeyId = requireText(accessKeyId, "access key id");
        this.accessKeySecret = requireText(accessKeySecret, "access key secret");
        this.stsToken = stsToken == null || stsToken.isEmpty() ? null : stsToken;
    }

    public static TablestoreCredentials of(String accessKeyId, String accessKeySecret) {
        return new TablestoreCredentials(accessKeyId, accessKeySecret, null);
    }

    public static TablestoreCredentials of(
            String accessKeyId, String accessKeySecret, String stsToken) {
        return new TablestoreCredentials(accessKeyId, accessKeySecret, stsToken);
    }

    public String accessKeyId() {
        return accessKeyId;
    }

    public String accessKeySecret() {
        return accessKeySecret;
    }

    public Optional<String> stsToken() {
        return Optional.ofNullable(stsToken);
    }

    private static String requireText(String value, String what) {
        if (value == null || value.isBlank()) {
            throw new IllegalArgumentException("The " + what + " is missing or empty");
        }
        return value;
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof TablestoreCredentials)) {
            return false;
        }
        TablestoreCredentials other = (TablestoreCredentials) o;
        return accessKeyId.equals(other.accessKeyId)
                && accessKeySecret.equals(other.accessKeySecret)
                && Objects.equals(stsToken, other.stsToken);
    }

    @Override
    public int hashCode() {
        return Objects.hash(accessKeyId, accessKeySecret, stsToken);
    }

    @Override
    public String toString() {
        return "TablestoreCredentials{accessKeyId="
                + accessKeyId
                + ", accessKeySecret=******"
                + (stsToken == null ? "" : ", stsToken=******")
                + "}";
    }
}
