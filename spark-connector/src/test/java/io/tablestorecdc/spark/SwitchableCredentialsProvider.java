package io.tablestorecdc.spark;

import com.alicloud.openservices.tablestore.core.auth.CredentialsProvider;
import com.alicloud.openservices.tablestore.core.auth.DefaultCredentials;
import com.alicloud.openservices.tablestore.core.auth.ServiceCredentials;

/**
 * A user's provider, as option {@code credentials.provider} names it: every instance yields what a
 * test last set (executors of a local master share this JVM).
 */
public final class SwitchableCredentialsProvider implements CredentialsProvider {

    static volatile ServiceCredentials current = new DefaultCredentials("unset", "unset");

    @Override
    public void setCredentials(ServiceCredentials credentials) {
        current = credentials;
    }

    @Override
    public ServiceCredentials getCredentials() {
        return current;
    }
}
