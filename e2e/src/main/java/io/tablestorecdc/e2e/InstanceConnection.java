package io.tablestorecdc.e2e;

import com.alicloud.openservices.tablestore.ClientConfiguration;
import com.alicloud.openservices.tablestore.SyncClient;
import com.alicloud.openservices.tablestore.TunnelClient;
import io.tablestorecdc.checkpoint.model.CredentialsSource;
import io.tablestorecdc.checkpoint.model.TablestoreCredentials;
import io.tablestorecdc.checkpoint.model.TablestoreEndpoint;
import io.tablestorecdc.checkpoint.tunnel.SdkCredentials;
import io.tablestorecdc.flink.source.TablestoreCdcSourceBuilder;
import java.util.LinkedHashMap;
import java.util.Map;

/**
 * A Tablestore instance and where clients get its credentials, as both connectors and the SDK
 * clients of the tests and the benchmark take them: a fixed key, the environment, an ECS RAM role
 * or a provider class (option {@code credentials.provider}). Never shows a secret.
 *
 * @param endpoint {@code http(s)://host[:port]}
 * @param instanceName the instance
 * @param credentials where the credentials come from
 */
public record InstanceConnection(
        String endpoint, String instanceName, CredentialsSource credentials) {

    /** An instance signed in to with a fixed access key pair. */
    public static InstanceConnection withKey(
            String endpoint, String instanceName, String accessKeyId, String accessKeySecret) {
        return new InstanceConnection(
                endpoint,
                instanceName,
                CredentialsSource.fixed(TablestoreCredentials.of(accessKeyId, accessKeySecret)));
    }

    /** The core's view of it: what the meta table and tunnel clients connect with. */
    public TablestoreEndpoint tablestoreEndpoint() {
        return new TablestoreEndpoint(endpoint, instanceName, credentials);
    }

    /** The Spark options {@code endpoint}, {@code instance.name} and the credential options. */
    public Map<String, String> sparkOptions() {
        Map<String, String> options = new LinkedHashMap<>();
        options.put("endpoint", endpoint);
        options.put("instance.name", instanceName);
        switch (credentials.kind()) {
            case STATIC -> {
                TablestoreCredentials key = credentials.fixedCredentials().orElseThrow();
                options.put("access.key.id", key.accessKeyId());
                options.put("access.key.secret", key.accessKeySecret());
                key.stsToken().ifPresent(token -> options.put("sts.token", token));
            }
            case ENV -> options.put("credentials.provider", "env");
            case ECS_RAM_ROLE -> {
                options.put("credentials.provider", "ecs-ram-role");
                credentials.roleName().ifPresent(r -> options.put("credentials.ecs.role.name", r));
                options.put(
                        "credentials.ecs.metadata.endpoint",
                        credentials.metadataEndpoint().orElseThrow());
            }
            case PROVIDER_CLASS ->
                    options.put("credentials.provider", credentials.className().orElseThrow());
        }
        return options;
    }

    /**
     * The same options for a Flink SQL {@code WITH} clause ({@code 'endpoint' = '...', ...}): both
     * engines' connectors name them alike.
     */
    public String sqlOptions() {
        StringBuilder out = new StringBuilder();
        sparkOptions()
                .forEach(
                        (key, value) ->
                                out.append(out.isEmpty() ? "" : ", ")
                                        .append('\'')
                                        .append(key)
                                        .append("' = '")
                                        .append(value.replace("'", "''"))
                                        .append('\''));
        return out.toString();
    }

    /** Sets the endpoint, instance and credentials of a Flink source builder. */
    public <T> TablestoreCdcSourceBuilder<T> applyTo(TablestoreCdcSourceBuilder<T> builder) {
        builder.setEndpoint(endpoint).setInstanceName(instanceName);
        switch (credentials.kind()) {
            case STATIC -> {
                TablestoreCredentials key = credentials.fixedCredentials().orElseThrow();
                builder.setCredentials(key.accessKeyId(), key.accessKeySecret());
                key.stsToken().ifPresent(builder::setStsToken);
            }
            case ENV -> builder.setCredentialsProvider("env");
            case ECS_RAM_ROLE ->
                    builder.setCredentialsProvider("ecs-ram-role")
                            .setEcsRamRole(
                                    credentials.roleName().orElse(null),
                                    credentials.metadataEndpoint().orElseThrow());
            case PROVIDER_CLASS ->
                    builder.setCredentialsProvider(credentials.className().orElseThrow());
        }
        return builder;
    }

    /** A new SDK table client (the caller shuts it down). */
    public SyncClient syncClient(ClientConfiguration configuration) {
        return new SyncClient(
                endpoint, SdkCredentials.open(credentials), instanceName, configuration, null);
    }

    /** A new SDK table client with the SDK's default configuration. */
    public SyncClient syncClient() {
        return syncClient(new ClientConfiguration());
    }

    /** A new SDK tunnel client (the caller shuts it down). */
    public TunnelClient tunnelClient() {
        return new TunnelClient(
                endpoint,
                SdkCredentials.open(credentials),
                instanceName,
                new ClientConfiguration(),
                null);
    }

    @Override
    public String toString() {
        return endpoint + " instance " + instanceName + " (" + credentials.describe() + ")";
    }
}
