/**
 * The exact fix when the smart-card service is missing, per platform. Main passes the platform
 * (process.platform) and, on Linux, the ID and ID_LIKE words of /etc/os-release.
 */
export interface ServiceFixInput {
  platform: string;
  /** Linux distribution IDs, e.g. ['ubuntu', 'debian']. */
  distro?: readonly string[];
  /** False when the service's program is known to be absent (not installed), true when installed but not running. */
  installed?: boolean;
}

export function smartCardServiceFix({ platform, distro = [], installed }: ServiceFixInput): string {
  if (platform === 'win32') {
    return 'Start the Smart Card service: in an administrator prompt run `sc config SCardSvr start= demand` and `sc start SCardSvr` (Windows starts it when a reader is plugged in).';
  }
  if (platform === 'darwin') {
    return 'macOS includes the smart-card service; unplug and replug the reader. If it still does not appear, restart the Mac.';
  }
  const family = (ids: string[]) => ids.some((id) => distro.includes(id));
  const start = 'sudo systemctl enable --now pcscd.socket';
  let install: string;
  if (family(['debian', 'ubuntu'])) install = 'sudo apt-get install -y pcscd';
  else if (family(['fedora', 'rhel', 'centos'])) install = 'sudo dnf install -y pcsc-lite';
  else if (family(['arch'])) install = 'sudo pacman -S --needed pcsclite';
  else if (family(['opensuse', 'suse'])) install = 'sudo zypper install -y pcsc-lite';
  else if (family(['alpine']))
    return installed === false
      ? 'Install and start pcscd: `sudo apk add pcsc-lite` then `sudo rc-service pcscd start`.'
      : 'Start pcscd: `sudo rc-service pcscd start`.';
  else install = "install your distribution's pcscd (pcsc-lite) package";
  if (installed === true) return `Start the smart-card service: \`${start}\` (without systemd: \`sudo pcscd\`).`;
  const installStep = install.startsWith('sudo') ? `\`${install}\`` : install;
  return `Install and start the smart-card service: ${installStep}, then \`${start}\` (without systemd: \`sudo pcscd\`).`;
}
