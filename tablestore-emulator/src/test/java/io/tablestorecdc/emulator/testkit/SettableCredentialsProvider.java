package io.tablestorecdc.emulator.testkit;

import com.alicloud.openservices.tablestore.core.auth.CredentialsProvider;
import com.alicloud.openservices.tablestore.core.auth.DefaultCredentials;
import com.alicloud.openservices.tablestore.core.auth.ServiceCredentials;

/**
 * A user's provider, as option {@code credentials.provider} names it by class: every instance
 * yields what a test last {@link #set} (the SDK clients an engine builds in this JVM, on its driver
 * and on its local executors or task managers, all see the change at their next request).
 */
public final class SettableCredentialsProvider implements CredentialsProvider {

    private static volatile ServiceCredentials current = new DefaultCredentials("unset", "unset");

    /** What every instance yields from now on. */
    public static void set(ServiceCredentials credentials) {
        current = credentials;
    }

    @Override
    public void setCredentials(ServiceCredentials credentials) {
        current = credentials;
    }

    @Override
    public ServiceCredentials getCredentials() {
        return current;
    }
}
