package io.tablestorecdc.checkpoint.tunnel;

import com.alicloud.openservices.tablestore.core.auth.CredentialsProvider;
import com.alicloud.openservices.tablestore.core.auth.DefaultCredentials;
import com.alicloud.openservices.tablestore.core.auth.ServiceCredentials;
import io.tablestorecdc.checkpoint.annotation.Internal;
import io.tablestorecdc.checkpoint.model.CredentialsSource;
import io.tablestorecdc.checkpoint.model.TablestoreCredentials;
import java.lang.reflect.Constructor;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Modifier;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.Deque;
import java.util.List;
import java.util.Map;
import java.util.Optional;

/**
 * The SDK credentials provider of one client, built from a {@link CredentialsSource} where the
 * client is built (a Spark executor or driver, a Flink task manager or job manager).
 *
 * <p>The SDK asks its provider for credentials on every request, so a source that rotates (the
 * instance metadata service, a user's provider) is followed without rebuilding the client. The
 * secrets and tokens this provider handed out are remembered (the last few), so that {@link
 * SecretRedactor} masks the current ones and those just replaced (invariant 9).
 */
@Internal
public final class SdkCredentials implements CredentialsProvider {

    /** The variables option {@code credentials.provider = env} reads: Alibaba Cloud's names. */
    public static final String ENV_ACCESS_KEY_ID = "ALIBABA_CLOUD_ACCESS_KEY_ID";

    public static final String ENV_ACCESS_KEY_SECRET = "ALIBABA_CLOUD_ACCESS_KEY_SECRET";
    public static final String ENV_SECURITY_TOKEN = "ALIBABA_CLOUD_SECURITY_TOKEN";

    private static final String OPTION = "credentials.provider";
    private static final int REMEMBERED = 8;

    private final CredentialsProvider delegate;
    private final String description;
    private final Deque<String> secrets = new ArrayDeque<>();
    private volatile ServiceCredentials lastHandedOut;

    private SdkCredentials(CredentialsProvider delegate, String description) {
        this.delegate = delegate;
        this.description = description;
    }

    /** The provider of {@code source}, reading environment variables from this process's. */
    public static SdkCredentials open(CredentialsSource source) {
        return open(source, System.getenv());
    }

    /**
     * The provider of {@code source}.
     *
     * @param environment the environment variables {@code env} reads (the process's in production)
     * @throws IllegalArgumentException when the source cannot yield credentials here (a variable is
     *     missing, the class is not a provider), naming what to set
     */
    public static SdkCredentials open(CredentialsSource source, Map<String, String> environment) {
        CredentialsProvider provider =
                switch (source.kind()) {
                    case STATIC -> fixed(source.fixedCredentials().orElseThrow());
                    case ENV -> fromEnvironment(environment);
                    case ECS_RAM_ROLE ->
                            new EcsRamRoleCredentials(
                                    source.metadataEndpoint().orElseThrow(), source.roleName());
                    case PROVIDER_CLASS -> instantiate(source.className().orElseThrow());
                };
        return new SdkCredentials(provider, source.describe());
    }

    /**
     * The problem with {@code className} as a value of {@code credentials.provider}, worded for the
     * user; empty when it names a loadable class that implements the SDK's provider interface with
     * a public no-argument constructor.
     */
    public static Optional<String> providerClassProblem(String className) {
        try {
            constructor(className);
            return Optional.empty();
        } catch (IllegalArgumentException e) {
            return Optional.of(e.getMessage());
        }
    }

    @Override
    public ServiceCredentials getCredentials() {
        ServiceCredentials credentials = delegate.getCredentials();
        if (credentials == null) {
            throw new IllegalStateException(
                    "The credentials provider ("
                            + description
                            + ") returned no credentials; it must return an access key id and"
                            + " secret on every call");
        }
        // Asked on every request: only credentials not seen last time are remembered again.
        if (credentials != lastHandedOut) {
            remember(credentials.getSecurityToken());
            remember(credentials.getAccessKeySecret());
            lastHandedOut = credentials;
        }
        return credentials;
    }

    @Override
    public void setCredentials(ServiceCredentials credentials) {
        delegate.setCredentials(credentials);
    }

    /** The secrets and STS tokens handed out lately, newest first: what to mask in messages. */
    public synchronized List<String> recentSecrets() {
        return new ArrayList<>(secrets);
    }

    /** What the credentials come from; never a secret. */
    public String describe() {
        return description;
    }

    @Override
    public String toString() {
        return "SdkCredentials{" + description + "}";
    }

    private synchronized void remember(String secret) {
        if (secret == null || secret.isEmpty()) {
            return;
        }
        secrets.remove(secret);
        secrets.addFirst(secret);
        while (secrets.size() > REMEMBERED) {
            secrets.removeLast();
        }
    }

    private static CredentialsProvider fixed(TablestoreCredentials credentials) {
        ServiceCredentials fixed =
                new DefaultCredentials(
                        credentials.accessKeyId(),
                        credentials.accessKeySecret(),
                        credentials.stsToken().orElse(null));
        return new FixedProvider(fixed);
    }

    private static CredentialsProvider fromEnvironment(Map<String, String> environment) {
        String id = environment.get(ENV_ACCESS_KEY_ID);
        String secret = environment.get(ENV_ACCESS_KEY_SECRET);
        List<String> missing = new ArrayList<>();
        if (id == null || id.isBlank()) {
            missing.add(ENV_ACCESS_KEY_ID);
        }
        if (secret == null || secret.isBlank()) {
            missing.add(ENV_ACCESS_KEY_SECRET);
        }
        if (!missing.isEmpty()) {
            throw new IllegalArgumentException(
                    "Option '"
                            + OPTION
                            + "' is env, but "
                            + String.join(" and ", missing)
                            + (missing.size() == 1 ? " is" : " are")
                            + " not set in the environment of this process: set "
                            + ENV_ACCESS_KEY_ID
                            + " and "
                            + ENV_ACCESS_KEY_SECRET
                            + " (and "
                            + ENV_SECURITY_TOKEN
                            + " for STS credentials) where every driver, executor or task manager"
                            + " runs, or choose another credentials.provider");
        }
        String token = environment.get(ENV_SECURITY_TOKEN);
        return new FixedProvider(
                new DefaultCredentials(
                        id.trim(),
                        secret.trim(),
                        token == null || token.isBlank() ? null : token.trim()));
    }

    private static CredentialsProvider instantiate(String className) {
        Constructor<?> constructor = constructor(className);
        try {
            return (CredentialsProvider) constructor.newInstance();
        } catch (InvocationTargetException e) {
            throw new IllegalArgumentException(
                    "Option '"
                            + OPTION
                            + "': the constructor of "
                            + className
                            + " failed ("
                            + e.getCause().getClass().getName()
                            + "); fix the provider class",
                    null);
        } catch (ReflectiveOperationException e) {
            throw new IllegalArgumentException(
                    "Option '" + OPTION + "': cannot instantiate " + className + " (" + e + ")");
        }
    }

    private static Constructor<?> constructor(String className) {
        Class<?> type;
        try {
            type = Class.forName(className, false, classLoader());
        } catch (ClassNotFoundException | LinkageError e) {
            throw new IllegalArgumentException(
                    "Option '"
                            + OPTION
                            + "' has invalid value '"
                            + className
                            + "': no such class on the classpath; use static, env, ecs-ram-role"
                            + " or the fully qualified name of a class on the classpath of the"
                            + " driver and every executor or task manager");
        }
        if (!CredentialsProvider.class.isAssignableFrom(type)) {
            throw new IllegalArgumentException(
                    "Option '"
                            + OPTION
                            + "' has invalid value '"
                            + className
                            + "': the class does not implement "
                            + CredentialsProvider.class.getName()
                            + "; implement it, or use static, env or ecs-ram-role");
        }
        if (!Modifier.isPublic(type.getModifiers()) || Modifier.isAbstract(type.getModifiers())) {
            throw new IllegalArgumentException(
                    "Option '"
                            + OPTION
                            + "' has invalid value '"
                            + className
                            + "': the class must be public and concrete");
        }
        try {
            return type.getConstructor();
        } catch (NoSuchMethodException e) {
            throw new IllegalArgumentException(
                    "Option '"
                            + OPTION
                            + "' has invalid value '"
                            + className
                            + "': the class has no public no-argument constructor; add one");
        }
    }

    private static ClassLoader classLoader() {
        ClassLoader context = Thread.currentThread().getContextClassLoader();
        return context != null ? context : SdkCredentials.class.getClassLoader();
    }

    /** Always the same credentials. */
    private static final class FixedProvider implements CredentialsProvider {
        private volatile ServiceCredentials credentials;

        FixedProvider(ServiceCredentials credentials) {
            this.credentials = credentials;
        }

        @Override
        public void setCredentials(ServiceCredentials credentials) {
            this.credentials = credentials;
        }

        @Override
        public ServiceCredentials getCredentials() {
            return credentials;
        }
    }
}
