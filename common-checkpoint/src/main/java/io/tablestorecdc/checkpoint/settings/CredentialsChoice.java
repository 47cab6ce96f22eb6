package io.tablestorecdc.checkpoint.settings;

import static io.tablestorecdc.checkpoint.settings.SourceOption.ACCESS_KEY_ID;
import static io.tablestorecdc.checkpoint.settings.SourceOption.ACCESS_KEY_SECRET;
import static io.tablestorecdc.checkpoint.settings.SourceOption.CREDENTIALS_ECS_METADATA_ENDPOINT;
import static io.tablestorecdc.checkpoint.settings.SourceOption.CREDENTIALS_ECS_ROLE_NAME;
import static io.tablestorecdc.checkpoint.settings.SourceOption.CREDENTIALS_PROVIDER;
import static io.tablestorecdc.checkpoint.settings.SourceOption.STS_TOKEN;

import io.tablestorecdc.checkpoint.model.CredentialsSource;
import io.tablestorecdc.checkpoint.model.TablestoreCredentials;
import io.tablestorecdc.checkpoint.tunnel.SdkCredentials;
import java.io.Serializable;
import java.util.List;
import java.util.Optional;
import java.util.regex.Pattern;

/**
 * The value of {@code credentials.provider} and its companion options, read and checked: which
 * source SDK clients get their credentials from. Holds names only, never a secret.
 */
final class CredentialsChoice implements Serializable {

    private static final long serialVersionUID = 1L;

    private static final Pattern ENDPOINT =
            Pattern.compile("^(?i)http(s)?(?-i)://[a-zA-Z0-9._-]+(:\\d{1,5})?/?$");
    private static final Pattern CLASS_NAME =
            Pattern.compile("^[\\p{L}_$][\\p{L}\\p{N}_$]*(\\.[\\p{L}_$][\\p{L}\\p{N}_$]*)+$");
    private static final String NAMES =
            "use static, env, ecs-ram-role or the fully qualified name of a class implementing"
                    + " com.alicloud.openservices.tablestore.core.auth.CredentialsProvider";

    private final CredentialsSource.Kind kind;
    private final String className;
    private final String roleName;
    private final String metadataEndpoint;

    private CredentialsChoice(
            CredentialsSource.Kind kind, String className, String roleName, String endpoint) {
        this.kind = kind;
        this.className = className;
        this.roleName = roleName;
        this.metadataEndpoint = endpoint;
    }

    /** Reads the options, recording each problem in {@code values}. */
    static CredentialsChoice read(OptionValues values) {
        Optional<String> provider = values.text(CREDENTIALS_PROVIDER.key());
        CredentialsSource.Kind kind = CredentialsSource.Kind.STATIC;
        String className = null;
        if (provider.isPresent()) {
            String text = provider.get();
            switch (text) {
                case "static" -> kind = CredentialsSource.Kind.STATIC;
                case "env" -> kind = CredentialsSource.Kind.ENV;
                case "ecs-ram-role" -> kind = CredentialsSource.Kind.ECS_RAM_ROLE;
                default -> {
                    if (CLASS_NAME.matcher(text).matches()) {
                        kind = CredentialsSource.Kind.PROVIDER_CLASS;
                        className = text;
                        SdkCredentials.providerClassProblem(text).ifPresent(values::problem);
                    } else {
                        values.problem(
                                OptionValues.invalidValue(CREDENTIALS_PROVIDER.key(), text, NAMES));
                    }
                }
            }
        }
        if (kind == CredentialsSource.Kind.STATIC) {
            for (SourceOption key : List.of(ACCESS_KEY_ID, ACCESS_KEY_SECRET)) {
                if (values.text(key.key()).filter(t -> !t.isEmpty()).isEmpty()) {
                    values.problem(
                            OptionValues.missing(key.key(), values.howToSet(key.key()))
                                    + " (or set "
                                    + CREDENTIALS_PROVIDER.key()
                                    + " to env, ecs-ram-role or a provider class)");
                }
            }
        } else {
            for (SourceOption key : List.of(ACCESS_KEY_ID, ACCESS_KEY_SECRET, STS_TOKEN)) {
                if (values.text(key.key()).isPresent()) {
                    values.problem(
                            "Option '"
                                    + key.key()
                                    + "' is set, but "
                                    + CREDENTIALS_PROVIDER.key()
                                    + " = "
                                    + provider.orElseThrow()
                                    + " takes credentials from elsewhere: remove "
                                    + key.key()
                                    + ", or set "
                                    + CREDENTIALS_PROVIDER.key()
                                    + " to static");
                }
            }
        }
        String role =
                values.text(CREDENTIALS_ECS_ROLE_NAME.key()).filter(t -> !t.isEmpty()).orElse(null);
        Optional<String> endpointText = values.text(CREDENTIALS_ECS_METADATA_ENDPOINT.key());
        if (kind != CredentialsSource.Kind.ECS_RAM_ROLE) {
            for (SourceOption key :
                    List.of(CREDENTIALS_ECS_ROLE_NAME, CREDENTIALS_ECS_METADATA_ENDPOINT)) {
                if (values.text(key.key()).isPresent()) {
                    values.problem(
                            "Option '"
                                    + key.key()
                                    + "' applies only with "
                                    + CREDENTIALS_PROVIDER.key()
                                    + " = ecs-ram-role: remove it, or set "
                                    + CREDENTIALS_PROVIDER.key()
                                    + " to ecs-ram-role");
                }
            }
        }
        String endpoint =
                values.parsed(
                        CREDENTIALS_ECS_METADATA_ENDPOINT.key(),
                        CredentialsSource.DEFAULT_METADATA_ENDPOINT,
                        CredentialsChoice::metadataEndpoint);
        if (endpointText.isEmpty()) {
            endpoint = CredentialsSource.DEFAULT_METADATA_ENDPOINT;
        }
        return new CredentialsChoice(kind, className, role, endpoint);
    }

    private static String metadataEndpoint(String text) {
        if (!ENDPOINT.matcher(text).matches()) {
            throw new IllegalArgumentException(
                    OptionValues.invalidValue(
                            CREDENTIALS_ECS_METADATA_ENDPOINT.key(),
                            text,
                            "use http(s)://host[:port] with no path, or leave it unset for "
                                    + CredentialsSource.DEFAULT_METADATA_ENDPOINT));
        }
        return text;
    }

    CredentialsSource.Kind kind() {
        return kind;
    }

    /** The source; the access key options are read only for {@code static}. */
    CredentialsSource source(String accessKeyId, String accessKeySecret, String stsToken) {
        return switch (kind) {
            case STATIC ->
                    CredentialsSource.fixed(
                            TablestoreCredentials.of(accessKeyId, accessKeySecret, stsToken));
            case ENV -> CredentialsSource.environment();
            case ECS_RAM_ROLE ->
                    CredentialsSource.ecsRamRole(metadataEndpoint, Optional.ofNullable(roleName));
            case PROVIDER_CLASS -> CredentialsSource.providerClass(className);
        };
    }

    /** The options as {@code key=value} pairs; none for {@code static}, which shows the key. */
    String describe() {
        return switch (kind) {
            case STATIC -> "";
            case ENV -> CREDENTIALS_PROVIDER.key() + "=env";
            case ECS_RAM_ROLE ->
                    CREDENTIALS_PROVIDER.key()
                            + "=ecs-ram-role, "
                            + (roleName == null
                                    ? ""
                                    : CREDENTIALS_ECS_ROLE_NAME.key() + "=" + roleName + ", ")
                            + CREDENTIALS_ECS_METADATA_ENDPOINT.key()
                            + "="
                            + metadataEndpoint;
            case PROVIDER_CLASS -> CREDENTIALS_PROVIDER.key() + "=" + className;
        };
    }
}
