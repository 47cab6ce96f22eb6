package io.tablestorecdc.checkpoint.model;

import io.tablestorecdc.checkpoint.annotation.Internal;
import java.util.Objects;
import java.util.regex.Pattern;

/**
 * Where a Tablestore instance is and how to sign in to it.
 *
 * @param endpoint the instance's HTTP(S) endpoint, for example {@code
 *     https://myinstance.cn-hangzhou.ots.aliyuncs.com} or {@code http://127.0.0.1:8080}
 * @param instanceName the instance name
 * @param credentials where clients get their credentials (secrets redacted in {@code toString()})
 */
@Internal
public record TablestoreEndpoint(
        String endpoint, String instanceName, CredentialsSource credentials) {

    // The SDK's own endpoint rule: scheme, host, optional port, no path.
    private static final Pattern ENDPOINT =
            Pattern.compile("^(?i)http(s)?(?-i)://[a-zA-Z0-9._-]+(:\\d{1,5})?(/)?$");
    private static final Pattern INSTANCE = Pattern.compile("^[a-zA-Z0-9_-]+$");

    /** An endpoint signed in to with a fixed access key pair (and optional STS token). */
    public TablestoreEndpoint(
            String endpoint, String instanceName, TablestoreCredentials credentials) {
        this(endpoint, instanceName, CredentialsSource.fixed(credentials));
    }

    public TablestoreEndpoint {
        Objects.requireNonNull(credentials, "credentials");
        if (endpoint == null || !ENDPOINT.matcher(endpoint).matches()) {
            throw new IllegalArgumentException(
                    "Invalid endpoint '"
                            + endpoint
                            + "': expected http(s)://host[:port] with no path, for example"
                            + " https://myinstance.cn-hangzhou.ots.aliyuncs.com");
        }
        if (instanceName == null || !INSTANCE.matcher(instanceName).matches()) {
            throw new IllegalArgumentException(
                    "Invalid instance name '"
                            + instanceName
                            + "': use letters, digits, '_' and '-' only");
        }
    }
}
