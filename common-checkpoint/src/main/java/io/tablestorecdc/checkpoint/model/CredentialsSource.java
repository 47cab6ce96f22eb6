package io.tablestorecdc.checkpoint.model;

import io.tablestorecdc.checkpoint.annotation.Internal;
import java.util.Objects;
import java.util.Optional;

/**
 * Where an SDK client gets its credentials: a fixed access key (with an optional STS token), the
 * process environment, the ECS instance metadata service (a RAM role), or a provider class of the
 * user's.
 *
 * <p>It names the source, it does not hold what the source yields: only the fixed kind carries a
 * secret, and {@link #toString()} masks it (invariant 9). The SDK adapters turn it into a provider
 * where each client is built, so credentials that rotate are fetched there, never shipped.
 */
@Internal
public final class CredentialsSource {

    /** The kinds, by the value of option {@code credentials.provider}. */
    public enum Kind {
        /** {@code static}: the access key (and STS token) given in the options. */
        STATIC("static"),
        /** {@code env}: {@code ALIBABA_CLOUD_ACCESS_KEY_ID} and friends, read where built. */
        ENV("env"),
        /** {@code ecs-ram-role}: temporary credentials of a RAM role from instance metadata. */
        ECS_RAM_ROLE("ecs-ram-role"),
        /** A class implementing the SDK's {@code CredentialsProvider}. */
        PROVIDER_CLASS("<class name>");

        private final String code;

        Kind(String code) {
            this.code = code;
        }

        /** The option value that selects this kind. */
        public String code() {
            return code;
        }
    }

    /** The instance metadata service every ECS instance reaches. */
    public static final String DEFAULT_METADATA_ENDPOINT = "http://100.100.100.200";

    private final Kind kind;
    private final TablestoreCredentials fixed;
    private final String metadataEndpoint;
    private final String roleName;
    private final String className;

    private CredentialsSource(
            Kind kind,
            TablestoreCredentials fixed,
            String metadataEndpoint,
            String roleName,
            String className) {
        this.kind = kind;
        this.fixed = fixed;
        this.metadataEndpoint = metadataEndpoint;
        this.roleName = roleName;
        this.className = className;
    }

    /** A fixed access key pair and optional STS token. */
    public static CredentialsSource fixed(TablestoreCredentials credentials) {
        return new CredentialsSource(
                Kind.STATIC, Objects.requireNonNull(credentials, "credentials"), null, null, null);
    }

    /** The environment variables of the JVM that builds the client. */
    public static CredentialsSource environment() {
        return new CredentialsSource(Kind.ENV, null, null, null, null);
    }

    /**
     * A RAM role's temporary credentials from the instance metadata service.
     *
     * @param metadataEndpoint http(s)://host[:port] of the service, {@link
     *     #DEFAULT_METADATA_ENDPOINT} on ECS
     * @param roleName the role; empty to use the one role attached to the instance
     */
    public static CredentialsSource ecsRamRole(String metadataEndpoint, Optional<String> roleName) {
        String endpoint = Objects.requireNonNull(metadataEndpoint, "metadataEndpoint");
        while (endpoint.endsWith("/")) {
            endpoint = endpoint.substring(0, endpoint.length() - 1);
        }
        return new CredentialsSource(
                Kind.ECS_RAM_ROLE,
                null,
                endpoint,
                roleName.filter(r -> !r.isBlank()).orElse(null),
                null);
    }

    /** An instance of {@code className}, a public class with a public no-argument constructor. */
    public static CredentialsSource providerClass(String className) {
        return new CredentialsSource(
                Kind.PROVIDER_CLASS,
                null,
                null,
                null,
                Objects.requireNonNull(className, "className"));
    }

    public Kind kind() {
        return kind;
    }

    /** The fixed credentials; present for {@link Kind#STATIC} only. */
    public Optional<TablestoreCredentials> fixedCredentials() {
        return Optional.ofNullable(fixed);
    }

    /** The metadata service endpoint; present for {@link Kind#ECS_RAM_ROLE} only. */
    public Optional<String> metadataEndpoint() {
        return Optional.ofNullable(metadataEndpoint);
    }

    /** The RAM role name, when one was given. */
    public Optional<String> roleName() {
        return Optional.ofNullable(roleName);
    }

    /** The provider class; present for {@link Kind#PROVIDER_CLASS} only. */
    public Optional<String> className() {
        return Optional.ofNullable(className);
    }

    /**
     * A name of this source that holds no secret, for descriptions and logs: the access key id for
     * a fixed key, else the kind and what it reads from.
     */
    public String describe() {
        return switch (kind) {
            case STATIC -> "accessKeyId=" + fixed.accessKeyId();
            case ENV -> "credentials.provider=env";
            case ECS_RAM_ROLE ->
                    "credentials.provider=ecs-ram-role("
                            + (roleName == null ? "the instance's role" : roleName)
                            + " from "
                            + metadataEndpoint
                            + ")";
            case PROVIDER_CLASS -> "credentials.provider=" + className;
        };
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof CredentialsSource)) {
            return false;
        }
        CredentialsSource other = (CredentialsSource) o;
        return kind == other.kind
                && Objects.equals(fixed, other.fixed)
                && Objects.equals(metadataEndpoint, other.metadataEndpoint)
                && Objects.equals(roleName, other.roleName)
                && Objects.equals(className, other.className);
    }

    @Override
    public int hashCode() {
        return Objects.hash(kind, fixed, metadataEndpoint, roleName, className);
    }

    /** The secret and the STS token of a fixed key are masked. */
    @Override
    public String toString() {
        return "CredentialsSource{" + (kind == Kind.STATIC ? fixed.toString() : describe()) + "}";
    }
}
