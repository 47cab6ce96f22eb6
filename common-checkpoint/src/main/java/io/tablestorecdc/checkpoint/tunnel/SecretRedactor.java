package io.tablestorecdc.checkpoint.tunnel;

import io.tablestorecdc.checkpoint.model.TablestoreCredentials;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Supplier;

/**
 * Removes the access key secret and STS token from text that leaves the adapter (invariant 9).
 *
 * <p>The SDK never puts them into its errors as far as we know; this is the belt to that braces,
 * because an exception message travels into engine UIs and logs we do not control.
 */
final class SecretRedactor {

    static final String MASK = "******";

    private final Supplier<List<String>> secrets;

    private SecretRedactor(List<String> secrets) {
        List<String> fixed = List.copyOf(secrets);
        this.secrets = () -> fixed;
    }

    private SecretRedactor(Supplier<List<String>> secrets) {
        this.secrets = secrets;
    }

    /** Masks the secrets and tokens {@code credentials} handed out lately, as they rotate. */
    static SecretRedactor of(SdkCredentials credentials) {
        return new SecretRedactor(credentials::recentSecrets);
    }

    static SecretRedactor of(TablestoreCredentials credentials) {
        List<String> secrets = new ArrayList<>();
        secrets.add(credentials.accessKeySecret());
        credentials.stsToken().ifPresent(secrets::add);
        return new SecretRedactor(secrets);
    }

    static SecretRedactor none() {
        return new SecretRedactor(List.of());
    }

    String redact(String text) {
        if (text == null) {
            return null;
        }
        String result = text;
        for (String secret : secrets.get()) {
            result = result.replace(secret, MASK);
        }
        return result;
    }

    /**
     * The cause to attach to our exception: the SDK's own exception when nothing in its chain
     * mentions a secret, otherwise a stand-in with redacted messages and the same stack traces.
     */
    Throwable safeCause(Throwable cause) {
        if (cause == null || !mentionsSecret(cause)) {
            return cause;
        }
        RedactedError copy =
                new RedactedError(
                        cause.getClass().getName() + ": " + redact(cause.getMessage()),
                        safeCause(cause.getCause()));
        copy.setStackTrace(cause.getStackTrace());
        return copy;
    }

    private boolean mentionsSecret(Throwable error) {
        for (Throwable t = error; t != null; t = t.getCause()) {
            String text = t.getMessage();
            if (text != null && !redact(text).equals(text)) {
                return true;
            }
        }
        return false;
    }

    /** Stands in for an SDK exception whose message held a secret. */
    static final class RedactedError extends RuntimeException {
        private static final long serialVersionUID = 1L;

        RedactedError(String message, Throwable cause) {
            super(message, cause);
        }
    }
}
