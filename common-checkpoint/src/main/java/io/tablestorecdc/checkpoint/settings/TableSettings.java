package io.tablestorecdc.checkpoint.settings;

import static io.tablestorecdc.checkpoint.settings.SourceOption.ACCESS_KEY_ID;
import static io.tablestorecdc.checkpoint.settings.SourceOption.ACCESS_KEY_SECRET;
import static io.tablestorecdc.checkpoint.settings.SourceOption.ENDPOINT;
import static io.tablestorecdc.checkpoint.settings.SourceOption.INSTANCE_NAME;
import static io.tablestorecdc.checkpoint.settings.SourceOption.STS_TOKEN;
import static io.tablestorecdc.checkpoint.settings.SourceOption.TABLE_NAME;

import io.tablestorecdc.checkpoint.model.CredentialsSource;
import io.tablestorecdc.checkpoint.model.TablestoreCredentials;
import io.tablestorecdc.checkpoint.model.TablestoreEndpoint;
import java.io.Serializable;
import java.util.Map;
import java.util.Optional;
import java.util.function.Function;

/**
 * The connection options of a table read or written directly (the {@code tablestore} connector):
 * {@code endpoint}, {@code instance.name}, the credentials options and {@code table.name}, read
 * exactly as the {@code tablestore-cdc} source reads them. Secrets never appear in {@link
 * #toString()}.
 */
public final class TableSettings implements Serializable {

    private static final long serialVersionUID = 1L;

    private final String endpoint;
    private final String instanceName;
    private final CredentialsChoice credentialsChoice;
    private final String accessKeyId;
    private final String accessKeySecret;
    private final String stsToken;
    private final String tableName;

    private TableSettings(OptionValues values) {
        endpoint = values.required(ENDPOINT.key());
        instanceName = values.required(INSTANCE_NAME.key());
        credentialsChoice = CredentialsChoice.read(values);
        accessKeyId = values.text(ACCESS_KEY_ID.key()).orElse("");
        accessKeySecret = values.text(ACCESS_KEY_SECRET.key()).orElse("");
        stsToken = values.text(STS_TOKEN.key()).filter(t -> !t.isEmpty()).orElse(null);
        tableName = values.required(TABLE_NAME.key());
        if (!endpoint.isEmpty() && !instanceName.isEmpty()) {
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
    }

    /** Reads the options from {@code values}; empty when any problem was recorded there. */
    public static Optional<TableSettings> read(OptionValues values) {
        TableSettings settings = new TableSettings(values);
        return values.hasProblems() ? Optional.empty() : Optional.of(settings);
    }

    /**
     * Parses the connection options of {@code options} (others are ignored) and throws every
     * problem at once, as {@link SourceSettings#parse} does.
     */
    public static TableSettings parse(
            Map<String, String> options,
            Function<String, String> howToSet,
            String subject,
            String docsPage) {
        OptionValues values = new OptionValues(options, howToSet);
        Optional<TableSettings> settings = read(values);
        values.throwIfAny(subject, docsPage);
        return settings.orElseThrow();
    }

    /** The instance endpoint with credentials, as the core's SDK adapters take it. */
    public TablestoreEndpoint tablestoreEndpoint() {
        return new TablestoreEndpoint(endpoint, instanceName, credentials());
    }

    /** Where SDK clients get their credentials: the one way to read the secrets. */
    public CredentialsSource credentials() {
        return credentialsChoice.source(accessKeyId, accessKeySecret, stsToken);
    }

    public String tableName() {
        return tableName;
    }

    @Override
    public String toString() {
        return "TableSettings{endpoint="
                + endpoint
                + ", instance="
                + instanceName
                + ", table="
                + tableName
                + ", credentials="
                + credentialsChoice.kind()
                + "}";
    }
}
