package io.tablestorecdc.checkpoint.settings;

import static io.tablestorecdc.checkpoint.settings.SourceOption.ACCESS_KEY_ID;
import static io.tablestorecdc.checkpoint.settings.SourceOption.ACCESS_KEY_SECRET;
import static io.tablestorecdc.checkpoint.settings.SourceOption.ENDPOINT;
import static io.tablestorecdc.checkpoint.settings.SourceOption.INSTANCE_NAME;
import static io.tablestorecdc.checkpoint.settings.SourceOption.STS_TOKEN;
import static io.tablestorecdc.checkpoint.settings.SourceOption.TABLE_NAME;

import io.tablestorecdc.checkpoint.annotation.Internal;
import io.tablestorecdc.checkpoint.model.CredentialsSource;
import io.tablestorecdc.checkpoint.model.TablestoreCredentials;
import io.tablestorecdc.checkpoint.model.TablestoreEndpoint;
import java.io.Serializable;
import java.util.Map;
import java.util.Objects;
import java.util.Optional;
import java.util.function.Function;

/**
 * The connection options of the {@code tablestore} connectors, read and checked with the same rules
 * as the {@code tablestore-cdc} source's: {@code endpoint}, {@code instance.name}, the credentials
 * ({@code access.key.id}, {@code access.key.secret}, {@code sts.token} or {@code
 * credentials.provider} and its companions) and {@code table.name}.
 *
 * <p>Serializable plain fields, shipped to the engines' workers; secrets never in {@link
 * #toString()}.
 */
@Internal
public final class TableConnection implements Serializable {

    private static final long serialVersionUID = 1L;

    private final String endpoint;
    private final String instanceName;
    private final String accessKeyId;
    private final String accessKeySecret;
    private final String stsToken;
    private final CredentialsChoice credentialsChoice;
    private final String tableName;

    private TableConnection(OptionValues values) {
        this(values, values.required(TABLE_NAME.key()));
    }

    private TableConnection(OptionValues values, String tableName) {
        endpoint = values.required(ENDPOINT.key());
        instanceName = values.required(INSTANCE_NAME.key());
        credentialsChoice = CredentialsChoice.read(values);
        accessKeyId = values.text(ACCESS_KEY_ID.key()).orElse("");
        accessKeySecret = values.text(ACCESS_KEY_SECRET.key()).orElse("");
        stsToken = values.text(STS_TOKEN.key()).filter(t -> !t.isEmpty()).orElse(null);
        this.tableName = tableName;
        checkEndpoint(values, endpoint, instanceName);
    }

    /** Reads the options, recording problems in {@code values} (fallback values where absent). */
    static TableConnection reading(OptionValues values) {
        return new TableConnection(values);
    }

    /**
     * Reads the options but {@code table.name}, which a source reads as its {@link TableSelection};
     * {@code tableName} is the one table, or the selection's text.
     */
    static TableConnection reading(OptionValues values, String tableName) {
        return new TableConnection(values, tableName);
    }

    /** This connection to another table of the same instance. */
    TableConnection withTable(String table) {
        return new TableConnection(this, table);
    }

    private TableConnection(TableConnection other, String tableName) {
        this.endpoint = other.endpoint;
        this.instanceName = other.instanceName;
        this.accessKeyId = other.accessKeyId;
        this.accessKeySecret = other.accessKeySecret;
        this.stsToken = other.stsToken;
        this.credentialsChoice = other.credentialsChoice;
        this.tableName = tableName;
    }

    /**
     * Reads the connection options from {@code values}, recording each problem there.
     *
     * @return empty when {@code values} holds any problem
     */
    public static Optional<TableConnection> read(OptionValues values) {
        TableConnection connection = new TableConnection(values);
        return values.hasProblems() ? Optional.empty() : Optional.of(connection);
    }

    /**
     * Parses the connection options of {@code options} and throws every problem at once.
     *
     * @throws IllegalArgumentException listing every problem, each naming the option and the fix
     */
    public static TableConnection parse(
            Map<String, String> options,
            Function<String, String> howToSet,
            String subject,
            String docsPage) {
        OptionValues values = new OptionValues(options, howToSet);
        Optional<TableConnection> connection = read(values);
        values.throwIfAny(subject, docsPage);
        return connection.orElseThrow();
    }

    /** The core's endpoint rule; the credentials here are placeholders, never the secret. */
    static void checkEndpoint(OptionValues values, String endpoint, String instanceName) {
        if (endpoint.isEmpty() || instanceName.isEmpty()) {
            return;
        }
        try {
            new TablestoreEndpoint(
                    endpoint, instanceName, TablestoreCredentials.of("id", "secret"));
        } catch (IllegalArgumentException e) {
            String option =
                    e.getMessage().startsWith("Invalid endpoint")
                            ? ENDPOINT.key()
                            : INSTANCE_NAME.key();
            values.problem("Option '" + option + "': " + e.getMessage());
        }
    }

    /** The instance endpoint with its credentials source, as the core's SDK adapters take it. */
    public TablestoreEndpoint tablestoreEndpoint() {
        return new TablestoreEndpoint(endpoint, instanceName, credentials());
    }

    /** Where SDK clients get their credentials; the one way to read the secrets. */
    public CredentialsSource credentials() {
        return credentialsChoice.source(accessKeyId, accessKeySecret, stsToken);
    }

    public String endpoint() {
        return endpoint;
    }

    public String instanceName() {
        return instanceName;
    }

    /** The access key id of {@code credentials.provider = static}; {@code null} for the others. */
    public String accessKeyId() {
        return credentialsChoice.kind() == CredentialsSource.Kind.STATIC ? accessKeyId : null;
    }

    public String tableName() {
        return tableName;
    }

    /** The options as {@code key=value} pairs, secrets masked. */
    public String describe() {
        return describeInstance() + ", " + TABLE_NAME.key() + "=" + tableName;
    }

    /** The options but {@code table.name} as {@code key=value} pairs, secrets masked. */
    String describeInstance() {
        return ENDPOINT.key()
                + "="
                + endpoint
                + ", "
                + INSTANCE_NAME.key()
                + "="
                + instanceName
                + ", "
                + (credentialsChoice.kind() == CredentialsSource.Kind.STATIC
                        ? ACCESS_KEY_ID.key()
                                + "="
                                + accessKeyId
                                + ", "
                                + ACCESS_KEY_SECRET.key()
                                + "=******"
                                + (stsToken == null ? "" : ", " + STS_TOKEN.key() + "=******")
                        : credentialsChoice.describe());
    }

    @Override
    public boolean equals(Object o) {
        if (!(o instanceof TableConnection)) {
            return false;
        }
        TableConnection other = (TableConnection) o;
        return endpoint.equals(other.endpoint)
                && instanceName.equals(other.instanceName)
                && credentials().equals(other.credentials())
                && tableName.equals(other.tableName);
    }

    @Override
    public int hashCode() {
        return Objects.hash(endpoint, instanceName, accessKeyId, tableName);
    }

    /** Secrets are replaced by {@code ******}. */
    @Override
    public String toString() {
        return "TableConnection{" + describe() + "}";
    }
}
