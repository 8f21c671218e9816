package org.zludaj.driver.backend;

/**
 * A device as the driver reports it. {@code attributes[i]} is the value of CUdevice_attribute i (every index
 * defined); {@code uuid} is 16 bytes.
 */
public record Device(String name, long totalMemory, byte[] uuid, int[] attributes) {
    public int attribute(int id) {
        return attributes[id];
    }
}
