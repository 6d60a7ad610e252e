/** Figures of Redis' INFO text, as every bench part reads them. */

/** A numeric field of an INFO section's text (0 when absent). */
export function infoField(text: string, name: string): number {
  return Number(new RegExp(`${name}:([\\d.]+)`).exec(text)?.[1] ?? 0);
}

/** The CPU seconds (user and system) an `INFO cpu` text reports. */
export function redisCpuSeconds(cpuInfo: string): number {
  return infoField(cpuInfo, 'used_cpu_user') + infoField(cpuInfo, 'used_cpu_sys');
}
